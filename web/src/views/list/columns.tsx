import { useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { Button, Checkbox, Dialog, DialogTrigger, Popover } from 'react-aria-components';
import { useMe } from '../../app/meta.ts';
import { useT } from '../../i18n/index.tsx';
import { useColumnsT } from './column-messages.ts';
import type { FieldInfo } from '../../model/records.ts';

type Visibility = Record<string, boolean>;

/** A person's arrangement of one list view: shown optional columns, their order, their widths. */
export interface ColumnLayout {
  visible: Visibility;
  /** column names in the person's order; columns the view gained since come after, in its order */
  order: string[];
  /** widths in CSS pixels of the columns the person resized */
  widths: Record<string, number>;
}

export const MIN_WIDTH = 60;
export const MAX_WIDTH = 800;
const STEP = 16;
const clampWidth = (w: number) => Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, w)));

/** What was stored: the layout, or a plain visibility map (what was stored before order and widths). */
function parseLayout(text: string | null): ColumnLayout {
  const empty: ColumnLayout = { visible: {}, order: [], widths: {} };
  try {
    const v = JSON.parse(text ?? '{}') as Record<string, unknown>;
    if (!v || typeof v !== 'object') return empty;
    if (!('visible' in v) && !('order' in v) && !('widths' in v)) return { ...empty, visible: v as Visibility };
    const widths = Object.fromEntries(Object.entries((v.widths ?? {}) as Record<string, unknown>)
      .filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1])).map(([k, w]) => [k, clampWidth(w)]));
    return {
      visible: (typeof v.visible === 'object' && v.visible ? v.visible : {}) as Visibility,
      order: Array.isArray(v.order) ? v.order.filter((x): x is string => typeof x === 'string') : [],
      widths,
    };
  } catch {
    return empty;
  }
}

/** The view's columns in the person's order: names they placed first, the rest in the view's order. */
export function orderColumns(names: readonly string[], order: readonly string[]): string[] {
  const known = new Set(names);
  const placed = order.filter((n) => known.has(n));
  return [...new Set([...placed, ...names])];
}

/** `name` moved to just before `before` (to the end when `before` is null). */
export function moveBefore(names: readonly string[], name: string, before: string | null): string[] {
  const rest = names.filter((n) => n !== name);
  const at = before === null ? rest.length : rest.indexOf(before);
  return at < 0 ? [...names] : [...rest.slice(0, at), name, ...rest.slice(at)];
}

export interface Columns {
  /** every column of the view in the person's order, hidden optional ones included */
  ordered: FieldInfo[];
  /** the columns to draw */
  shown: FieldInfo[];
  visible: Visibility;
  widths: Record<string, number>;
  customised: boolean;
  setVisible: (name: string, on: boolean) => void;
  move: (name: string, before: string | null) => void;
  setWidth: (name: string, width: number | null) => void;
  reset: () => void;
}

/**
 * The person's arrangement of a list view's columns, remembered per user and view in this browser
 * (as Odoo keeps optional columns): optional columns (`optional="show|hide"`) shown or hidden,
 * the order (dragged headers or Move up/down in Columns), widths (the header's edge, dragged or
 * with arrow keys). Columns without `optional` always show.
 */
export function useColumns(viewId: string, columns: readonly FieldInfo[]): Columns {
  const me = useMe();
  const key = `fw.columns.${me.id}.${viewId}`;
  const [layout, setLayout] = useState<ColumnLayout>(() => parseLayout(localStorage.getItem(key)));
  const save = (next: ColumnLayout) => {
    localStorage.setItem(key, JSON.stringify(next));
    setLayout(next);
  };
  const names = columns.map((f) => f.name);
  return useMemo(() => {
    const byName = new Map(columns.map((f) => [f.name, f]));
    const ordered = orderColumns(names, layout.order).map((n) => byName.get(n)!);
    const visible: Visibility = Object.fromEntries(columns.map((f) => [f.name, f.optional ? layout.visible[f.name] ?? f.optional === 'show' : true]));
    return {
      ordered,
      shown: ordered.filter((f) => visible[f.name]),
      visible,
      widths: layout.widths,
      customised: layout.order.length > 0 || Object.keys(layout.widths).length > 0 || Object.keys(layout.visible).length > 0,
      setVisible: (name, on) => save({ ...layout, visible: { ...layout.visible, [name]: on } }),
      move: (name, before) => save({ ...layout, order: moveBefore(ordered.map((f) => f.name), name, before) }),
      setWidth: (name, width) => {
        const widths = { ...layout.widths };
        if (width === null) delete widths[name]; else widths[name] = clampWidth(width);
        save({ ...layout, widths });
      },
      reset: () => save({ visible: {}, order: [], widths: {} }),
    };
  }, [layout, columns]); // eslint-disable-line react-hooks/exhaustive-deps
}

/** The Columns popover: optional columns shown or hidden, every column moved up or down, a reset. */
export function ColumnPicker({ cols }: { cols: Columns }) {
  const t = useT();
  const tc = useColumnsT();
  const names = cols.ordered.map((f) => f.name);
  // A move re-renders the list: the pressed button's item moves in the DOM, and the button is
  // disabled when its column reaches an end, either of which drops the focus to the page, where
  // Escape no longer closes the popover. The focus goes back to the moved column's button, or
  // to its other one at an end.
  const list = useRef<HTMLUListElement>(null);
  const [moved, setMoved] = useState<{ name: string; dir: 'up' | 'down' } | null>(null);
  useLayoutEffect(() => {
    if (!moved) return;
    const button = (dir: string) => list.current?.querySelector<HTMLButtonElement>(`[data-testid="column-${dir}-${CSS.escape(moved.name)}"]`);
    const same = button(moved.dir);
    (same && !same.disabled ? same : button(moved.dir === 'up' ? 'down' : 'up'))?.focus();
    setMoved(null);
  }, [moved]);
  return (
    <DialogTrigger>
      <Button className="btn btn-ghost" data-testid="column-picker">{t('list.columns')}</Button>
      <Popover className="popover">
        <Dialog className="column-dialog" aria-label={t('list.columns')}>
          <ul className="column-list" ref={list}>
            {cols.ordered.map((f, i) => (
              <li key={f.name} className="column-item" data-testid={`column-item-${f.name}`}>
                {f.optional ? (
                  <Checkbox className="checkbox" isSelected={cols.visible[f.name]} data-testid={`column-${f.name}`}
                    onChange={(on) => cols.setVisible(f.name, on)}>
                    <span className="checkbox-box" aria-hidden="true" />{f.label}
                  </Checkbox>
                ) : <span className="column-fixed">{f.label}</span>}
                <span className="column-moves">
                  <Button className="btn-icon" isDisabled={i === 0} aria-label={tc('list.column.up', { label: f.label })}
                    data-testid={`column-up-${f.name}`} onPress={() => { cols.move(f.name, names[i - 1]); setMoved({ name: f.name, dir: 'up' }); }}>↑</Button>
                  <Button className="btn-icon" isDisabled={i === names.length - 1} aria-label={tc('list.column.down', { label: f.label })}
                    data-testid={`column-down-${f.name}`} onPress={() => { cols.move(f.name, names[i + 2] ?? null); setMoved({ name: f.name, dir: 'down' }); }}>↓</Button>
                </span>
              </li>
            ))}
          </ul>
          {cols.customised && <Button className="btn" onPress={cols.reset} data-testid="columns-reset">{tc('list.columns.reset')}</Button>}
        </Dialog>
      </Popover>
    </DialogTrigger>
  );
}

/**
 * The right edge of a header: dragged with the pointer, or focused and moved with the arrow keys
 * (a vertical separator, as WAI-ARIA's window splitter); a double click or Delete gives the
 * column back its natural width.
 */
export function ResizeHandle({ field, width, setWidth }: { field: FieldInfo; width: number | undefined; setWidth: (name: string, w: number | null) => void }) {
  const tc = useColumnsT();
  const ref = useRef<HTMLSpanElement>(null);
  const current = (el: Element) => Math.round(el.parentElement?.getBoundingClientRect().width ?? width ?? MIN_WIDTH);
  // the width a screen reader announces, measured when the column has its natural width
  const [measured, setMeasured] = useState<number>(width ?? MIN_WIDTH);
  useLayoutEffect(() => { if (ref.current) setMeasured(current(ref.current)); }); // eslint-disable-line react-hooks/exhaustive-deps
  function down(e: PointerEvent<HTMLSpanElement>) {
    e.preventDefault();
    e.stopPropagation();
    const el = e.currentTarget;
    const start = current(el);
    const x0 = e.clientX;
    const th = el.parentElement as HTMLElement | null;
    el.setPointerCapture(e.pointerId);
    let last = start;
    const move = (ev: globalThis.PointerEvent) => {
      last = clampWidth(start + ev.clientX - x0);
      // the header follows the pointer at once; the width is stored when the pointer is let go
      if (th) { th.style.width = `${last}px`; th.style.minWidth = `${last}px`; th.style.maxWidth = `${last}px`; }
    };
    const up = () => {
      el.removeEventListener('pointermove', move);
      el.removeEventListener('pointerup', up);
      el.removeEventListener('pointercancel', up);
      if (last !== start) setWidth(field.name, last);
    };
    el.addEventListener('pointermove', move);
    el.addEventListener('pointerup', up);
    el.addEventListener('pointercancel', up);
  }
  function key(e: KeyboardEvent<HTMLSpanElement>) {
    const w = width ?? current(e.currentTarget);
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      e.preventDefault();
      setWidth(field.name, w + (e.key === 'ArrowRight' ? STEP : -STEP));
    } else if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault();
      setWidth(field.name, null);
    }
  }
  return (
    <span ref={ref} role="separator" aria-orientation="vertical" tabIndex={0} className="col-resize" data-testid={`resize-${field.name}`}
      aria-label={tc('list.column.resize', { label: field.label })} aria-valuemin={MIN_WIDTH} aria-valuemax={MAX_WIDTH}
      aria-valuenow={width ?? measured}
      onPointerDown={down} onKeyDown={key} onClick={(e) => e.stopPropagation()} onDoubleClick={() => setWidth(field.name, null)} />
  );
}

/** The style of a resized column's header and cells: exactly its width, its text cut with an ellipsis. */
export const widthStyle = (w: number | undefined) => (w ? { width: w, minWidth: w, maxWidth: w } : undefined);
