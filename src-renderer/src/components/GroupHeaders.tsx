import type { StepGroupHeaders } from '../store';
import { TRAJECTORY_CLASSES } from './trajectoryStyles';

/** The round and sub-task a step opens, shown above it. */
export function GroupHeaders({ headers }: { headers: StepGroupHeaders }) {
  const { round, subtask } = headers;
  if (!round && !subtask) return null;
  return (
    <div className={round ? `${TRAJECTORY_CLASSES.groups} ${TRAJECTORY_CLASSES.groupsWithRound}` : TRAJECTORY_CLASSES.groups}>
      {round && (
        <div className={TRAJECTORY_CLASSES.round}>
          <span className={TRAJECTORY_CLASSES.roundNumber}>Round {round.round + 1}</span>
          <h2 className={TRAJECTORY_CLASSES.roundRequest}>{round.request || (round.round === 0 ? 'Request' : 'Follow-up')}</h2>
        </div>
      )}
      {subtask && (
        <p className={TRAJECTORY_CLASSES.subtask}>
          <span className={TRAJECTORY_CLASSES.subtaskAgent}>{subtask.agent}</span>
          {subtask.target && <span>in {subtask.target}</span>}
          {subtask.subtask && <span>· {subtask.subtask}</span>}
          <span>
            ({subtask.steps} {subtask.steps === 1 ? 'step' : 'steps'})
          </span>
        </p>
      )}
    </div>
  );
}
