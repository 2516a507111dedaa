import { rankWith, uiTypeIs, type JsonFormsRendererRegistryEntry } from '@jsonforms/core';
import { createContext, useContext } from 'react';
import { formRenderers } from '../forms/renderers';
import { SERVER_STATUS_ELEMENT } from '../forms/settings-schema';
import { ServerStatusList } from './ServerStatusList';

/** Whether the settings form holds changes not saved yet: the status is of the saved servers. */
export const UnsavedSettingsContext = createContext(false);

function ServerStatusElement() {
  return <ServerStatusList unsavedChanges={useContext(UnsavedSettingsContext)} />;
}

/** The renderers of the Settings form: an agent's form's, and the MCP servers' status after their field. */
export const settingsRenderers: JsonFormsRendererRegistryEntry[] = [
  ...formRenderers,
  { tester: rankWith(10, uiTypeIs(SERVER_STATUS_ELEMENT)), renderer: ServerStatusElement },
];
