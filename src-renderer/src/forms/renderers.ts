import type { JsonFormsCellRendererRegistryEntry, JsonFormsRendererRegistryEntry } from '@jsonforms/core';
import { materialCells, materialRenderers } from '@jsonforms/material-renderers';
import { ButtonElement, buttonElementTester } from './ButtonElement';
import { MarkdownElement, markdownElementTester } from './MarkdownElement';
import { SecretCell, secretCellTester } from './SecretCell';

/** JSONForms' material renderers plus the two elements agents may add: Button and Markdown. */
export const formRenderers: JsonFormsRendererRegistryEntry[] = [
  ...materialRenderers,
  { tester: buttonElementTester, renderer: ButtonElement },
  { tester: markdownElementTester, renderer: MarkdownElement },
];

/** JSONForms' material cells (the fields of a list's table), a secret field's being a password box. */
export const formCells: JsonFormsCellRendererRegistryEntry[] = [...materialCells, { tester: secretCellTester, cell: SecretCell }];
