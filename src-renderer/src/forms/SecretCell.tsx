import { and, rankWith, schemaMatches, uiTypeIs, type OwnPropsOfCell } from '@jsonforms/core';
import { MaterialTextCell } from '@jsonforms/material-renderers';
import { isSecretField } from '../../../src-main/protocol/form-spec';

/**
 * A secret field (`format: "password"`, `writeOnly`) in a list's table, where JSONForms draws each item's
 * fields as cells from a UI schema of its own that no agent's `options.format` reaches: Material's text
 * cell as a password box, as the same field outside a list is (see maskSecretFields).
 */
function SecretCellRenderer(props: OwnPropsOfCell) {
  const { uischema } = props;
  if (!uischema) return <MaterialTextCell {...props} />;
  return <MaterialTextCell {...props} uischema={{ ...uischema, options: { ...uischema.options, format: 'password' } }} />;
}

export const secretCellTester = rankWith(10, and(uiTypeIs('Control'), schemaMatches((field) => isSecretField(field))));
export const SecretCell = SecretCellRenderer;
