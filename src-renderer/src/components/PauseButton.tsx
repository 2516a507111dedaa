import { Button } from '@mui/material';
import { canPause, currentSession, useDeskhand } from '../store';

export function PauseButton() {
  const enabled = useDeskhand((state) => canPause(currentSession(state)));
  const pause = useDeskhand((state) => state.pause);
  return (
    <Button variant="outlined" disabled={!enabled} onClick={() => void pause()}>
      Pause
    </Button>
  );
}
