import type { DisplayWidget } from '@fw/web';

/**
 * `widget="crm.probability"`: a win probability (0–1) as a bar and a percentage. A display
 * widget only: an editable form keeps the number input of the field's type.
 */
export const ProbabilityBar: DisplayWidget = ({ value }) => {
  if (value === null || value === undefined || value === '') return <span className="muted">—</span>;
  const share = Math.min(1, Math.max(0, Number(value)));
  const percent = Math.round(share * 100);
  return (
    <span className="crm-probability" data-testid="crm-probability">
      <meter min={0} max={100} low={34} high={67} optimum={100} value={percent} aria-label={`${percent}%`} />
      <span className="num">{percent}%</span>
    </span>
  );
};
