import { Button, Tooltip } from '@mui/material';
import { canPause, stopTarget, useDeskhand } from '../store';

/** Pauses the running session, like Stop even when another one is on screen. */
export function PauseButton() {
  const target = useDeskhand(stopTarget);
  const onScreen = useDeskhand((state) => target !== null && target.id === state.currentSessionId);
  const pause = useDeskhand((state) => state.pause);
  const title = target && !onScreen && canPause(target) ? `Pause “${target.title}”, which is running` : 'Pause the run before its next action';
  return (
    <Tooltip title={title}>
      <span>
        <Button variant="outlined" disabled={!canPause(target)} onClick={() => void pause()}>
          Pause
        </Button>
      </span>
    </Tooltip>
  );
}
