import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import type { DamagedSessionView, SessionView } from '../../../src-main/protocol';
import { damagedSessionName } from '../store';

type Deletable = SessionView | DamagedSessionView;

interface DeleteSessionDialogProps {
  session: Deletable | null;
  onCancel(): void;
  onConfirm(session: Deletable): void;
}

/** What will go, in words: a damaged session's step count cannot be read. */
function whatGoes(session: Deletable | null): string {
  if (session !== null && 'problem' in session) {
    return `The damaged session “${damagedSessionName(session)}” with its steps, screenshots and forms will be deleted.`;
  }
  return `“${session?.title || session?.request}” with its ${session?.stepCount === 1 ? 'step' : `${session?.stepCount ?? 0} steps`}, screenshots and forms will be deleted.`;
}

/** Asks before a session, its steps and its screenshots are deleted for good. */
export function DeleteSessionDialog({ session, onCancel, onConfirm }: DeleteSessionDialogProps) {
  return (
    <Dialog open={session !== null} onClose={onCancel} aria-labelledby="delete-session-title" aria-describedby="delete-session-text">
      <DialogTitle id="delete-session-title">Delete this session?</DialogTitle>
      <DialogContent>
        <DialogContentText id="delete-session-text">
          {whatGoes(session)} This cannot be undone. The audit record of the commands it ran is kept.
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel} autoFocus>
          Cancel
        </Button>
        <Button color="error" variant="contained" onClick={() => session && onConfirm(session)}>
          Delete
        </Button>
      </DialogActions>
    </Dialog>
  );
}
