import { Link, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import Markdown, { type Components } from 'react-markdown';
import { safeLinkUrl } from './links';


const components: Components = {
  // Links open in a new window (never in the app itself), without handing it a way back to us.
  a: ({ href, children }) =>
    href ? (
      <Link href={href} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </Link>
    ) : (
      <span>{children}</span>
    ),
  // Remote images could leak what the form shows (and the CSP blocks them anyway): show their words.
  img: ({ alt }) => <span>{alt ? `[image: ${alt}]` : '[image]'}</span>,
  p: ({ children }) => (
    <Typography variant="body2" component="p" sx={{ my: 0.75 }}>
      {children}
    </Typography>
  ),
};

/**
 * Markdown written by a model: rendered by react-markdown with raw HTML skipped (never parsed into
 * elements), links limited to http(s), and images shown as text.
 */
export function SafeMarkdown({ text }: { text: string }): ReactNode {
  return (
    <Markdown skipHtml urlTransform={safeLinkUrl} components={components}>
      {text}
    </Markdown>
  );
}
