import type { JsonFormsRendererRegistryEntry } from '@jsonforms/core';
import { materialCells, materialRenderers } from '@jsonforms/material-renderers';
import { ButtonElement, buttonElementTester } from './ButtonElement';
import { MarkdownElement, markdownElementTester } from './MarkdownElement';

/** JSONForms' material renderers plus the two elements agents may add: Button and Markdown. */
export const formRenderers: JsonFormsRendererRegistryEntry[] = [
  ...materialRenderers,
  { tester: buttonElementTester, renderer: ButtonElement },
  { tester: markdownElementTester, renderer: MarkdownElement },
];

export const formCells = materialCells;
