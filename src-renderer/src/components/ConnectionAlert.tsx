import { Alert, Box } from '@mui/material';
import { useDeskhand } from '../store';

const ADDRESS_AGAIN = 'open the address Deskhand printed (http://…/?token=…) again, since each launch has a new token.';

/**
 * Browser mode, when the host no longer lets this page in (most often it was restarted, and the page
 * still has the old launch's token): says how to get back in, which retrying alone never does.
 */
export function ConnectionAlert() {
  const connection = useDeskhand((state) => state.connection);
  if (connection !== 'refused' && connection !== 'unreachable') return null;
  return (
    <Box sx={{ px: 2, py: 1, borderBottom: 1, borderColor: 'divider' }}>
      <Alert severity="error" variant="outlined">
        {connection === 'refused'
          ? `Deskhand refused this page's access token: it was probably restarted. To go on, ${ADDRESS_AGAIN}`
          : `Cannot reach Deskhand (still trying). If it was restarted, ${ADDRESS_AGAIN}`}
      </Alert>
    </Box>
  );
}
