import { useIntl } from 'react-intl';
import type { DisplayWidget } from '@fw/web';

/**
 * `widget="crm.probability"`: a win probability (0–1) as a bar and a percentage. A display
 * widget only: an editable form keeps the number input of the field's type.
 */
export const ProbabilityBar: DisplayWidget = ({ value }) => {
  if (value === null || value === undefined || value === '') return <span className="muted">—</span>;
  return <Probability share={Math.min(1, Math.max(0, Number(value)))} />;
};

/** The percentage as the reader's language writes it (50 %, in French). */
function Probability({ share }: { share: number }) {
  const text = useIntl().formatNumber(share, { style: 'percent', maximumFractionDigits: 0 });
  return (
    <span className="crm-probability" data-testid="crm-probability">
      <meter min={0} max={100} low={34} high={67} optimum={100} value={Math.round(share * 100)} aria-label={text} />
      <span className="num">{text}</span>
    </span>
  );
}
