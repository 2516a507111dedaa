import { Button, Tooltip } from '@mui/material';
import { canStop, currentSession, useDeskhand } from '../store';
import { MOD_KEY } from './labels';

export function StopButton() {
  const enabled = useDeskhand((state) => canStop(currentSession(state)));
  const stop = useDeskhand((state) => state.stop);
  return (
    <Tooltip title={`Stop the run (${MOD_KEY}+.)`}>
      <span>
        <Button variant="outlined" color="error" disabled={!enabled} onClick={() => void stop()}>
          Stop
        </Button>
      </span>
    </Tooltip>
  );
}
