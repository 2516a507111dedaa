import type { JsonSchema } from './schema-validator';
import type { UiElement } from '../../../src-main/protocol/form-spec';

/** The field that holds the answer to question `index` (0-based). */
export function answerKey(index: number): string {
  return `answer${index + 1}`;
}

/**
 * The agent's questions as a JSONForms form: one required text field per question, labelled with the
 * question itself, in the agent's order.
 */
export function questionsForm(questions: readonly string[]): { schema: JsonSchema; uischema: UiElement } {
  const properties: Record<string, JsonSchema> = {};
  questions.forEach((question, index) => {
    // Spaces alone are no answer (answersInOrder trims them away): marked on the field like an empty one.
    properties[answerKey(index)] = { type: 'string', title: question, pattern: '\\S', errorMessage: 'needs an answer' };
  });
  return {
    schema: { type: 'object', properties, required: questions.map((_question, index) => answerKey(index)) },
    uischema: {
      type: 'VerticalLayout',
      elements: questions.map((question, index) => ({
        type: 'Control',
        scope: `#/properties/${answerKey(index)}`,
        label: question,
        options: { multi: question.length > 80 },
      })),
    },
  };
}

/** The answers in question order, trimmed; null when one is still empty. */
export function answersInOrder(questions: readonly string[], data: Record<string, unknown>): string[] | null {
  const answers = questions.map((_question, index) => {
    const value = data[answerKey(index)];
    return typeof value === 'string' ? value.trim() : '';
  });
  return answers.every((answer) => answer !== '') ? answers : null;
}
