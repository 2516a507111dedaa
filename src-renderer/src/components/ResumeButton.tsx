import { Button } from '@mui/material';
import { currentSession, useDeskhand } from '../store';

/** Goes on with a paused run, or with an interrupted session from its last committed step. */
export function ResumeButton() {
  const interrupted = useDeskhand((state) => currentSession(state)?.status === 'interrupted');
  const resume = useDeskhand((state) => state.resume);
  return (
    <Button
      variant="contained"
      onClick={() => void resume()}
      title={interrupted ? 'Go on from the last step that completed before Deskhand was closed' : 'Go on with the run'}
    >
      Resume
    </Button>
  );
}
