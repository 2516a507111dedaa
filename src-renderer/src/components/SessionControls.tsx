import { Box } from '@mui/material';
import { canResume, stopTarget, useDeskhand } from '../store';
import { PauseButton } from './PauseButton';
import { ResumeButton } from './ResumeButton';
import { StopButton } from './StopButton';

/** Stop, and Pause or Resume (whichever applies), for the running session, else the one on screen. */
export function SessionControls() {
  const resumable = useDeskhand((state) => canResume(stopTarget(state)));
  return (
    <Box sx={{ display: 'flex', gap: 1, flexShrink: 0 }}>
      {resumable ? <ResumeButton /> : <PauseButton />}
      <StopButton />
    </Box>
  );
}
