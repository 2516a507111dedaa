import { Box } from '@mui/material';
import { SessionControls } from './SessionControls';
import { StatusLine } from './StatusLine';

/** Where the session on screen stands (running, paused, waiting for you…), how far, what it cost; Stop / Pause / Resume. */
export function StatusBar() {
  return (
    <Box
      component="section"
      aria-label="Session status"
      sx={{ display: 'flex', alignItems: 'center', gap: 2, px: 2, py: 1, borderBottom: 1, borderColor: 'divider', bgcolor: 'action.hover', minHeight: 52 }}
    >
      <StatusLine />
      <SessionControls />
    </Box>
  );
}
