import { Alert, AlertTitle, Box } from '@mui/material';
import { repairSummary, useDeskhand, useUi } from '../store';

/**
 * Above the trajectory after the host repaired a damaged database at its start: what was read back,
 * whether anything is missing, and where the damaged file is kept. It stays until closed.
 */
export function DatabaseRepairNotice() {
  const repair = useDeskhand((state) => state.databaseRepair);
  const dismissed = useUi((state) => state.dismissedRepair);
  const dismiss = useUi((state) => state.dismissRepair);
  if (!repair || repair.damagedFile === dismissed) return null;
  return (
    <Box sx={{ px: 2, py: 1, borderBottom: 1, borderColor: 'divider' }}>
      <Alert
        role="region"
        aria-label="Database repaired"
        severity={repair.partsLost ? 'warning' : 'info'}
        variant="outlined"
        closeText="Dismiss"
        onClose={() => dismiss(repair.damagedFile)}
        sx={{ overflowWrap: 'anywhere' }}
      >
        <AlertTitle>Database repaired</AlertTitle>
        {repairSummary(repair)} The damaged file is kept as{' '}
        <Box component="code" sx={{ fontSize: '0.9em' }}>
          {repair.damagedFile}
        </Box>{' '}
        ({repair.reason}).
      </Alert>
    </Box>
  );
}
