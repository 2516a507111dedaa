import { Alert, Box, Button, CircularProgress, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import type { ServerStatusView } from '../../../src-main/protocol';
import { useBridge } from '../store';
import { checkSummary, connectionText, previewOf, serverText } from './serverStatusText';

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A server's own words (an error, what was left out): plain text, a long one shown in part until asked for. */
function ServerWords({ label, text }: { label: string; text: string }) {
  const [whole, setWhole] = useState(false);
  const clean = serverText(text);
  const preview = previewOf(clean);
  return (
    <Typography variant="body2" component="div" sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
      {label}
      {whole ? clean : preview}
      {preview !== clean && (
        <Button size="small" onClick={() => setWhole((shown) => !shown)} aria-expanded={whole} sx={{ ml: 1, py: 0 }}>
          {whole ? 'Show less' : 'Show all'}
        </Button>
      )}
    </Typography>
  );
}

function ServerStatusItem({ status }: { status: ServerStatusView }) {
  const state = connectionText(status);
  return (
    <Box component="li" data-testid={`server-status-${status.name}`} sx={{ py: 1, borderTop: 1, borderColor: 'divider' }}>
      <Typography variant="body2" component="div">
        <Box component="span" sx={{ fontWeight: 600 }}>
          {status.name}
        </Box>
        {`: ${state}`}
        <Box component="span" sx={{ color: 'text.secondary' }}>
          {` · ${status.transport === 'http' ? 'HTTP' : 'program (stdio)'}${status.trusted ? ' · trusted' : ''}`}
        </Box>
      </Typography>
      {status.error !== null && <ServerWords label={status.connected ? 'Last problem: ' : 'Why: '} text={status.error} />}
      {!status.connected && status.error === null && (
        <Typography variant="body2" color="text.secondary">
          It connects when the next request starts, or when you check the connections.
        </Typography>
      )}
      {status.leftOut.length > 0 && (
        <>
          <Typography variant="body2" component="div">
            Left out of its tools:
          </Typography>
          <Box component="ul" sx={{ my: 0, pl: 3 }}>
            {status.leftOut.map((line, index) => (
              <li key={index}>
                <ServerWords label="" text={line} />
              </li>
            ))}
          </Box>
        </>
      )}
    </Box>
  );
}

/**
 * How each MCP server of the saved settings stands (`servers.status`), with a button that connects
 * them now (`servers.check`). Shows nothing while no server is saved.
 */
export function ServerStatusList({ unsavedChanges }: { unsavedChanges: boolean }) {
  const bridge = useBridge();
  const [servers, setServers] = useState<ServerStatusView[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const mounted = useRef(true);

  useEffect(() => {
    mounted.current = true;
    bridge.send({ type: 'servers.status' }).then(
      (view) => mounted.current && setServers(view.servers),
      (error: unknown) => mounted.current && setProblem(errorMessage(error)),
    );
    return () => {
      mounted.current = false;
    };
  }, [bridge]);

  const check = async (): Promise<void> => {
    // The button stays focusable while busy (a disabled one would drop the keyboard's place): a press is ignored.
    if (checking) return;
    setChecking(true);
    setAnnouncement('Checking the connections…');
    try {
      const view = await bridge.send({ type: 'servers.check' });
      if (!mounted.current) return;
      setServers(view.servers);
      setProblem(null);
      setAnnouncement(checkSummary(view.servers));
    } catch (error) {
      if (!mounted.current) return;
      setAnnouncement(`The connections could not be checked: ${errorMessage(error)}`);
    } finally {
      if (mounted.current) setChecking(false);
    }
  };

  if (problem !== null && servers === null) {
    return (
      <Alert severity="warning" sx={{ mt: 3 }}>
        The MCP servers' status is not available: {problem}
      </Alert>
    );
  }
  if (servers === null || servers.length === 0) return null;
  return (
    <Box component="section" aria-labelledby="server-status-title" sx={{ mt: 3 }}>
      <Typography id="server-status-title" variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
        MCP server connections
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        The servers as saved{unsavedChanges ? ' (changes in this form count once you save them)' : ''}. Servers connect when a
        request starts; Check connections connects them now.
      </Typography>
      <Box component="ul" aria-labelledby="server-status-title" aria-busy={checking} sx={{ listStyle: 'none', m: 0, p: 0 }}>
        {servers.map((status) => (
          <ServerStatusItem key={status.name} status={status} />
        ))}
      </Box>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, mt: 1 }}>
        <Button
          variant="outlined"
          size="small"
          onClick={() => void check()}
          aria-disabled={checking}
          startIcon={checking ? <CircularProgress size={14} disableShrink aria-hidden="true" /> : undefined}>
          Check connections
        </Button>
        <Typography variant="body2" color="text.secondary" role="status" aria-live="polite" aria-atomic="true" data-testid="server-check-result">
          {announcement}
        </Typography>
      </Box>
    </Box>
  );
}
