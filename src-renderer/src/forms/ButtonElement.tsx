import { rankWith, uiTypeIs, type LayoutProps } from '@jsonforms/core';
import { withJsonFormsLayoutProps } from '@jsonforms/react';
import { Box, Button } from '@mui/material';
import { useAgentForm } from './AgentFormContext';
import { pressThroughShift } from './press-through-shift';

interface ButtonUiSchema {
  type: 'Button';
  label: string;
  props: { action: string; variant?: unknown };
}

/** `{ "type": "Button", "label": "Search", "props": { "action": "search" } }`: sends the action at once. */
function ButtonElementRenderer({ uischema, visible, enabled }: LayoutProps) {
  const { onAction, closed } = useAgentForm();
  const element = uischema as unknown as ButtonUiSchema;
  if (!visible) return null;
  const variant = element.props.variant === 'outlined' || element.props.variant === 'text' ? element.props.variant : 'contained';
  return (
    <Box sx={{ my: 1 }}>
      <Button
        variant={variant}
        disabled={closed || !enabled}
        // The form's warnings show (or go) as the field typed in last passes its value on, and move the
        // button: a press must not be lost to that. onAction sends what was typed first, as for a keyboard press.
        onMouseDown={pressThroughShift}
        onClick={() => onAction(element.props.action)}>
        {element.label}
      </Button>
    </Box>
  );
}

export const buttonElementTester = rankWith(10, uiTypeIs('Button'));
export const ButtonElement = withJsonFormsLayoutProps(ButtonElementRenderer);
