import { Alert, Snackbar } from '@mui/material';
import { useDeskhand } from '../store';

/** Errors stay until dismissed; warnings (such as "busy") fade on their own. */
export function ErrorSnackbar() {
  const lastError = useDeskhand((state) => state.lastError);
  const dismissError = useDeskhand((state) => state.dismissError);
  if (!lastError) return null;
  return (
    <Snackbar
      key={lastError.serial}
      open
      anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}
      // Above the request box, so it never hides what is being typed.
      sx={{ bottom: { xs: 104, sm: 104 } }}
      autoHideDuration={lastError.severity === 'error' ? null : 6000}
      onClose={(event, reason) => {
        // A stray click elsewhere must not hide an error before it was read.
        if (reason === 'clickaway') return;
        // The Esc that closes this is spent: it must not also reject a held step.
        if (reason === 'escapeKeyDown') event.preventDefault();
        dismissError();
      }}
    >
      <Alert severity={lastError.severity} variant="filled" onClose={dismissError} sx={{ maxWidth: 640, overflowWrap: 'anywhere' }}>
        {lastError.message}
      </Alert>
    </Snackbar>
  );
}
