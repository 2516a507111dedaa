import { Button } from '@mui/material';
import { currentSession, useDeskhand } from '../store';

export function StopButton() {
  const isRunning = useDeskhand((state) => currentSession(state)?.status === 'running');
  const stop = useDeskhand((state) => state.stop);
  return (
    <Button variant="outlined" color="error" disabled={!isRunning} onClick={() => void stop()}>
      Stop
    </Button>
  );
}
