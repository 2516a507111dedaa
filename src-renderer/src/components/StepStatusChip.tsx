import type { AgentStatus } from '../../../src-main/protocol';
import { AGENT_STATUS_COLORS } from './labels';
import { chipColorClass, TRAJECTORY_CLASSES } from './trajectoryStyles';

/** The step's status as a small outlined chip. */
export function StepStatusChip({ status }: { status: AgentStatus }) {
  return (
    <div className={`${TRAJECTORY_CLASSES.chip} ${chipColorClass(AGENT_STATUS_COLORS[status])}`}>
      <span className={TRAJECTORY_CLASSES.chipLabel}>{status}</span>
    </div>
  );
}
