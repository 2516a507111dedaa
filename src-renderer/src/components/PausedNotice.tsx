import { Alert, Box } from '@mui/material';
import { currentSession, useDeskhand } from '../store';
import { plainText } from './plainText';

/**
 * Why the run on screen is paused, in full: the status line has room for the start of it only, and a
 * pause the user did not ask for (the disk running short, the mouse taken) says there what to do.
 * Not a live region: the status line already announces the same words.
 */
export function PausedNotice() {
  const reason = useDeskhand((state) => (currentSession(state)?.status === 'paused' && state.statusPause !== 'user' ? state.statusDetail : ''));
  if (!reason) return null;
  return (
    <Box sx={{ px: 2, py: 1, borderBottom: 1, borderColor: 'divider' }}>
      <Alert severity="warning" variant="outlined" role="note" aria-label="Why the run is paused" sx={{ overflowWrap: 'anywhere' }}>
        {plainText(reason)}
      </Alert>
    </Box>
  );
}
