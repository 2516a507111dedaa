import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBridge } from './bridge';
import { App } from './components/App';
import { createDeskhandStore, DeskhandProvider } from './store';

const bridge = createBridge();
const store = createDeskhandStore(bridge);
// Started only now, with the store subscribed, so the first events and the first connection are heard.
bridge.start();

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

createRoot(container).render(
  <StrictMode>
    <DeskhandProvider store={store} bridge={bridge}>
      <App />
    </DeskhandProvider>
  </StrictMode>,
);
