import { Button } from '@mui/material';
import { stopTarget, useDeskhand } from '../store';

/**
 * Goes on with a paused run (the running session's, like Stop, even when another one is on screen), or
 * with an interrupted session from its last committed step.
 */
export function ResumeButton() {
  const target = useDeskhand(stopTarget);
  const onScreen = useDeskhand((state) => target !== null && target.id === state.currentSessionId);
  const resume = useDeskhand((state) => state.resume);
  let title = `Go on with “${target?.title ?? ''}”, which is paused`;
  if (!target || onScreen) {
    title = target?.status === 'interrupted' ? 'Go on from the last step that completed before Deskhand was closed' : 'Go on with the run';
  }
  return (
    <Button variant="contained" onClick={() => void resume()} title={title}>
      Resume
    </Button>
  );
}
