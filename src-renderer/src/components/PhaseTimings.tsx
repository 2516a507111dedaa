import { Box, LinearProgress, Typography } from '@mui/material';
import { formatDuration } from './labels';

const PHASE_NAMES: Record<string, string> = {
  DATA_COLLECTION: 'Looking at the screen',
  LLM_INTERACTION: 'Asking the model',
  MODEL_REPLY: "of which the model's reply",
  ACTION_EXECUTION: 'Acting',
  MEMORY_UPDATE: 'Remembering',
  CONFIRMATION: 'Waiting for approval',
};

/** Milliseconds per processor phase, as bars against the longest. */
export function PhaseTimings({ phaseMs, totalMs }: { phaseMs: Record<string, number>; totalMs: number }) {
  const phases = Object.entries(phaseMs);
  if (phases.length === 0) return <Typography variant="body2">{formatDuration(totalMs)} in all (no phase timings).</Typography>;
  const longest = Math.max(...phases.map(([, ms]) => ms), 1);
  return (
    <Box component="dl" sx={{ m: 0, display: 'grid', gridTemplateColumns: 'max-content 1fr max-content', gap: 0.75, alignItems: 'center' }}>
      {phases.map(([phase, ms]) => (
        <Box key={phase} sx={{ display: 'contents' }}>
          <Typography component="dt" variant="body2">
            {PHASE_NAMES[phase] ?? phase}
          </Typography>
          <LinearProgress variant="determinate" value={(ms / longest) * 100} aria-hidden sx={{ height: 6, borderRadius: 3 }} />
          <Typography component="dd" variant="body2" sx={{ m: 0, textAlign: 'right' }}>
            {formatDuration(ms)}
          </Typography>
        </Box>
      ))}
      <Typography component="dt" variant="body2" sx={{ fontWeight: 600 }}>
        Whole step
      </Typography>
      <span />
      <Typography component="dd" variant="body2" sx={{ m: 0, fontWeight: 600, textAlign: 'right' }}>
        {formatDuration(totalMs)}
      </Typography>
    </Box>
  );
}
