import { Box, Button, Chip, TextField, Typography } from '@mui/material';
import type { SettingsView } from '../../../src-main/protocol';

interface ApiKeyFieldsProps {
  secrets: SettingsView['secrets'];
  /** Keys typed in this dialog (never read from the host: it never sends them). */
  typed: Record<string, string>;
  removing: ReadonlySet<string>;
  onType(profile: string, key: string): void;
  onToggleRemove(profile: string): void;
}

/**
 * Write-only API keys, one per model profile: the field starts empty and only says whether a key is set
 * (and when the OS offers no encryption for it, that it is "not protected").
 */
export function ApiKeyFields({ secrets, typed, removing, onType, onToggleRemove }: ApiKeyFieldsProps) {
  const profiles = Object.entries(secrets);
  if (profiles.length === 0) return null;
  return (
    <Box component="section" aria-labelledby="api-keys-title" sx={{ mt: 3 }}>
      <Typography id="api-keys-title" variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
        API keys
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
        Keys are write-only: type a new one to replace the stored key. Deskhand never shows a stored key.
      </Typography>
      {profiles.map(([profile, state]) => {
        const removal = removing.has(profile);
        const status = removal ? 'will be removed' : state.set ? 'set' : 'not set';
        return (
          <Box key={profile} sx={{ display: 'flex', gap: 1, alignItems: 'flex-start', mb: 1.5 }}>
            <TextField
              type="password"
              label={`API key (${profile})`}
              value={typed[profile] ?? ''}
              onChange={(event) => onType(profile, event.target.value)}
              autoComplete="new-password"
              size="small"
              disabled={removal}
              sx={{ flex: 1 }}
              helperText={`${status}${state.protected ? '' : ' · not protected: this system offers no encrypted key store'}`}
              slotProps={{ htmlInput: { maxLength: 500, spellCheck: false, 'data-profile': profile } }}
            />
            <Chip
              size="small"
              label={status}
              color={removal ? 'warning' : state.set ? 'success' : 'default'}
              sx={{ mt: 1 }}
              data-testid={`key-status-${profile}`}
            />
            {!state.protected && <Chip size="small" label="not protected" color="warning" variant="outlined" sx={{ mt: 1 }} />}
            {state.set && (
              <Button size="small" onClick={() => onToggleRemove(profile)} sx={{ mt: 0.5 }}>
                {removal ? 'Keep key' : 'Remove key'}
              </Button>
            )}
          </Box>
        );
      })}
    </Box>
  );
}
