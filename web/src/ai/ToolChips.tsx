import { useId, useState } from 'react';
import { useT } from '../i18n/index.tsx';
import { pretty, type ToolCallView } from './items.ts';

/** The tool calls of one assistant step: compact chips, each expanding to its arguments and result. */
export function ToolChips({ calls }: { calls: ToolCallView[] }) {
  const t = useT();
  return (
    <ul className="ai-tools" aria-label={t('ai.tools')}>
      {calls.map((c) => <ToolChip key={c.id} call={c} />)}
    </ul>
  );
}

const ICONS = { running: '…', ok: '✓', failed: '✕' } as const;
const STATUS = { running: 'ai.tool.running', ok: 'ai.tool.ok', failed: 'ai.tool.failed' } as const;

function ToolChip({ call }: { call: ToolCallView }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const panel = useId();
  const status = t(STATUS[call.status]);
  return (
    <li className={`ai-tool ai-tool-${call.status}`} data-testid="ai-tool" data-tool={call.name} data-status={call.status}>
      <button type="button" className="ai-chip" aria-expanded={open} aria-controls={panel} onClick={() => setOpen(!open)}>
        <span className="ai-chip-icon" aria-hidden="true">{ICONS[call.status]}</span>
        <span className="mono">{call.name}</span>
        <span className="ai-chip-status">{status}</span>
      </button>
      {open && (
        <div id={panel} className="ai-tool-detail" data-testid="ai-tool-detail">
          <div className="ai-detail-label">{t('ai.tool.arguments')}</div>
          <pre>{pretty(call.args)}</pre>
          {call.result != null && (
            <>
              <div className="ai-detail-label">{t('ai.tool.result')}{call.code ? ` (${call.code})` : ''}</div>
              <pre>{pretty(call.result)}</pre>
            </>
          )}
        </div>
      )}
    </li>
  );
}
