import { Box, Typography } from '@mui/material';
import { DetailSection } from './DetailSection';
import { commandEnd, resultParts, type CommandOutput } from './stepResult';
import { formatDuration } from './labels';

function Stream({ title, text }: { title: string; text: string }) {
  return (
    <Box sx={{ mt: 1 }}>
      <Typography variant="caption" color="text.secondary" component="h4" sx={{ m: 0 }}>
        {title}
      </Typography>
      <Typography
        variant="body2"
        component="pre"
        sx={{ m: 0, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', fontFamily: 'monospace', fontSize: 12, p: 1, bgcolor: 'action.hover', borderRadius: 1, maxHeight: 320, overflow: 'auto' }}
      >
        {text}
      </Typography>
    </Box>
  );
}

function CommandOutputView({ output }: { output: CommandOutput }) {
  const facts = [commandEnd(output), ...(output.duration_ms !== undefined ? [formatDuration(output.duration_ms)] : [])];
  if (output.truncated) facts.push('output cut to what the agent was shown');
  return (
    <Box sx={{ mb: 1 }}>
      <Typography variant="body2">{facts.join(' · ')}</Typography>
      {output.stdout && <Stream title="Output (stdout)" text={output.stdout} />}
      {output.stderr && <Stream title="Errors (stderr)" text={output.stderr} />}
      {!output.stdout && !output.stderr && (
        <Typography variant="body2" color="text.secondary">
          No output.
        </Typography>
      )}
    </Box>
  );
}

/** The step's tool result: a command's exit, output and errors laid out; any other result as text. */
export function ToolResultSection({ result }: { result: string | null }) {
  if (!result) return null;
  const parts = resultParts(result);
  if (!parts.some((part) => part.kind === 'command')) return <DetailSection title="Tool result">{result}</DetailSection>;
  return (
    <DetailSection title="Tool result">
      <Box>
        {parts.map((part, i) =>
          part.kind === 'command' ? (
            <CommandOutputView key={i} output={part.output} />
          ) : (
            <Typography key={i} variant="body2" sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {part.text}
            </Typography>
          ),
        )}
      </Box>
    </DetailSection>
  );
}
