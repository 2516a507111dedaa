import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, TextField } from '@mui/material';
import { useState, type FormEvent } from 'react';
import { MAX_SESSION_TITLE_CHARS, type SessionView } from '../../../src-main/protocol';

interface RenameSessionDialogProps {
  /** The session to rename, as it is now; null closes the dialog (also when it was deleted meanwhile). */
  session: SessionView | null;
  /** Resolves null once renamed, else why not (shown under the field). */
  onRename(session: SessionView, title: string): Promise<string | null>;
  /** Closes the dialog: `renamed` tells a saved title from Cancel or Esc. */
  onClose(renamed: boolean): void;
}

/**
 * Asks for a session's new title: Enter saves, Esc or Cancel keeps the old one. A title the host would
 * refuse (empty, too long, with a line break) is said under the field, and the dialog stays open.
 */
export function RenameSessionDialog({ session, onRename, onClose }: RenameSessionDialogProps) {
  return (
    <Dialog open={session !== null} onClose={() => onClose(false)} disableRestoreFocus fullWidth maxWidth="xs" aria-labelledby="rename-session-title" aria-describedby="rename-session-text">
      {/* Keyed by the session: a dialog opened again starts from the title as it is now. */}
      {session && <RenameForm key={session.id} session={session} onRename={onRename} onClose={onClose} />}
    </Dialog>
  );
}

function RenameForm({ session, onRename, onClose }: { session: SessionView } & Omit<RenameSessionDialogProps, 'session'>) {
  const current = session.title || session.request;
  const [draft, setDraft] = useState(current);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const save = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    if (saving) return;
    // Nothing to send when nothing changed (spaces around it do not count).
    if (draft.trim() === current && draft.trim() !== '') {
      onClose(false);
      return;
    }
    setSaving(true);
    const refused = await onRename(session, draft);
    setSaving(false);
    if (refused === null) onClose(true);
    else setError(refused);
  };

  return (
    <form noValidate onSubmit={(event) => void save(event)}>
      <DialogTitle id="rename-session-title">Rename session</DialogTitle>
      <DialogContent>
        <DialogContentText id="rename-session-text" sx={{ mb: 2 }}>
          The new title shows in the sessions list and wherever the session is named; its request stays as you typed it.
        </DialogContentText>
        <TextField
          autoFocus
          fullWidth
          id="rename-session-field"
          label="Title"
          value={draft}
          error={error !== null}
          helperText={error ?? `Up to ${MAX_SESSION_TITLE_CHARS} characters.`}
          onChange={(event) => {
            setDraft(event.target.value);
            setError(null);
          }}
          onFocus={(event) => event.target.select()}
          slotProps={{
            htmlInput: { spellCheck: true },
            // Said at once when it appears: the field keeps the focus, so it would be heard only on leaving it.
            formHelperText: { role: error === null ? undefined : 'alert' },
          }}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={() => onClose(false)}>Cancel</Button>
        <Button type="submit" variant="contained" disabled={saving}>
          Save
        </Button>
      </DialogActions>
    </form>
  );
}
