import {
  ArcElement, BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement,
  PieController, PointElement, Tooltip, type ChartConfiguration,
} from 'chart.js';
import { useEffect, useRef, useState } from 'react';

// only what bar, line and pie charts need: Chart.js tree-shakes the rest out of the graph chunk
Chart.register(BarController, LineController, PieController, BarElement, LineElement, PointElement, ArcElement, CategoryScale, LinearScale, Tooltip, Legend);

export interface Series { label: string; values: number[] }

/** Colours told apart in both themes and by people with the common colour-vision deficiencies (Okabe–Ito). */
const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#999999'];
const color = (i: number) => PALETTE[i % PALETTE.length];

/**
 * A bar, line or pie chart of `labels` × `series` on a canvas. The canvas is an image to
 * assistive technology, named by `summary`; the graph view puts the numbers in a table beside it.
 */
export function ChartCanvas({ type, labels, series, summary, format }: {
  type: 'bar' | 'line' | 'pie'; labels: string[]; series: Series[]; summary: string; format: (n: number) => string;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  // drawn anew when what it shows changes, not on every render of the view
  const shown = JSON.stringify([type, labels, series]);
  // the canvas is painted with the theme's colours: it is painted again when the theme changes
  const [theme, setTheme] = useState(() => document.documentElement.dataset.theme);
  useEffect(() => {
    const watch = new MutationObserver(() => setTheme(document.documentElement.dataset.theme));
    watch.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => watch.disconnect();
  }, []);
  useEffect(() => {
    if (!canvas.current) return;
    const style = getComputedStyle(canvas.current);
    const text = style.getPropertyValue('--text').trim() || '#1c1d21';
    const grid = style.getPropertyValue('--border').trim() || '#d9dbe1';
    const pie = type === 'pie';
    const config: ChartConfiguration<'bar' | 'line' | 'pie'> = {
      type,
      data: {
        labels,
        datasets: series.map((s, i) => ({
          label: s.label,
          data: s.values,
          // a pie colours its slices, bars and lines their series
          backgroundColor: pie ? labels.map((_, j) => color(j)) : color(i),
          borderColor: pie ? style.getPropertyValue('--surface').trim() || '#fff' : color(i),
          borderWidth: pie ? 1 : 2,
        })),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        // screenshots and people who asked for less motion see the chart at once
        animation: false,
        color: text,
        plugins: {
          legend: { display: pie || series.length > 1, labels: { color: text } },
          tooltip: { callbacks: { label: (c) => `${c.dataset.label ? `${c.dataset.label}: ` : ''}${format(Number(c.raw))}` } },
        },
        scales: pie ? {} : {
          x: { ticks: { color: text }, grid: { color: grid } },
          y: { beginAtZero: true, ticks: { color: text, callback: (v) => format(Number(v)) }, grid: { color: grid } },
        },
      },
    };
    const chart = new Chart(canvas.current, config);
    return () => chart.destroy();
    // `shown` stands for type, labels and series (new arrays on every render of the view)
  }, [shown, format, theme]);
  return (
    <div className="graph-canvas">
      <canvas ref={canvas} role="img" aria-label={summary} data-testid="graph-canvas" />
    </div>
  );
}
