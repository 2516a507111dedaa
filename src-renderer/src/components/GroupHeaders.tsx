import { Box, Typography } from '@mui/material';
import type { StepGroupHeaders } from '../store';

/** The round and sub-task a step opens, shown above it. */
export function GroupHeaders({ headers }: { headers: StepGroupHeaders }) {
  const { round, subtask } = headers;
  if (!round && !subtask) return null;
  return (
    <Box sx={{ mx: 2, mt: round ? 1.5 : 1, mb: 0.25 }}>
      {round && (
        <Box sx={{ display: 'flex', alignItems: 'baseline', gap: 1, borderBottom: 2, borderColor: 'primary.main', pb: 0.5, mb: 1 }}>
          <Typography variant="overline" color="primary" sx={{ flexShrink: 0, lineHeight: 1.5 }}>
            Round {round.round + 1}
          </Typography>
          <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, minWidth: 0, overflowWrap: 'anywhere' }}>
            {round.request || (round.round === 0 ? 'Request' : 'Follow-up')}
          </Typography>
        </Box>
      )}
      {subtask && (
        <Typography variant="body2" color="text.secondary" sx={{ display: 'flex', gap: 0.75, flexWrap: 'wrap', alignItems: 'baseline' }}>
          <Box component="span" sx={{ fontWeight: 600, color: 'text.primary' }}>
            {subtask.agent}
          </Box>
          {subtask.target && <span>in {subtask.target}</span>}
          {subtask.subtask && <span>· {subtask.subtask}</span>}
          <span>
            ({subtask.steps} {subtask.steps === 1 ? 'step' : 'steps'})
          </span>
        </Typography>
      )}
    </Box>
  );
}
