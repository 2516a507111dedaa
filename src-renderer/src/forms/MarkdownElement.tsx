import { rankWith, uiTypeIs, type LayoutProps } from '@jsonforms/core';
import { withJsonFormsLayoutProps } from '@jsonforms/react';
import { Box } from '@mui/material';
import { SafeMarkdown } from './SafeMarkdown';

/** `{ "type": "Markdown", "text": "..." }`: text for people, with no raw HTML. */
function MarkdownElementRenderer({ uischema, visible }: LayoutProps) {
  if (!visible) return null;
  const text = (uischema as unknown as { text?: unknown }).text;
  return (
    <Box sx={{ '& > :first-of-type': { mt: 0 } }}>
      <SafeMarkdown text={typeof text === 'string' ? text : ''} />
    </Box>
  );
}

export const markdownElementTester = rankWith(10, uiTypeIs('Markdown'));
export const MarkdownElement = withJsonFormsLayoutProps(MarkdownElementRenderer);
