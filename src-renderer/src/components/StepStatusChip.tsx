import type { AgentStatus, NotRun } from '../../../src-main/protocol';
import { AGENT_STATUS_COLORS, NOT_RUN_COLORS, NOT_RUN_DETAILS, NOT_RUN_LABELS } from './labels';
import { chipColorClass, TRAJECTORY_CLASSES } from './trajectoryStyles';

/** The step's status as a small outlined chip. */
export function StepStatusChip({ status }: { status: AgentStatus }) {
  return (
    <div className={`${TRAJECTORY_CLASSES.chip} ${chipColorClass(AGENT_STATUS_COLORS[status])}`}>
      <span className={TRAJECTORY_CLASSES.chipLabel}>{status}</span>
    </div>
  );
}

/** Why the step's action did not run ("Rejected by you", ...), as a chip next to its status; nothing for other steps. */
export function StepNotRunTag({ notRun }: { notRun: NotRun | null }) {
  if (notRun === null) return null;
  return (
    <div className={`${TRAJECTORY_CLASSES.chip} ${TRAJECTORY_CLASSES.notRun} ${chipColorClass(NOT_RUN_COLORS[notRun])}`} title={NOT_RUN_DETAILS[notRun]}>
      <span className={TRAJECTORY_CLASSES.chipLabel}>{NOT_RUN_LABELS[notRun]}</span>
    </div>
  );
}
