import { Button, Tooltip } from '@mui/material';
import { canStop, stopTarget, useDeskhand } from '../store';
import { MOD_KEY } from './labels';

export function StopButton() {
  const target = useDeskhand(stopTarget);
  const onScreen = useDeskhand((state) => target !== null && target.id === state.currentSessionId);
  const stop = useDeskhand((state) => state.stop);
  const what = target && !onScreen ? `Stop “${target.title}”, which is running` : 'Stop the run';
  return (
    <Tooltip title={`${what} (${MOD_KEY}+.)`}>
      <span>
        <Button variant="outlined" color="error" disabled={!canStop(target)} onClick={() => void stop()}>
          Stop
        </Button>
      </span>
    </Tooltip>
  );
}
