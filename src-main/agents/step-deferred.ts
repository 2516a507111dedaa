/**
 * The step cannot be taken now (its screenshot showed the user has taken the mouse): nothing is
 * recorded and the model is not asked; the run pauses, and the step is taken afresh on resume.
 */
export class StepDeferred extends Error {}
