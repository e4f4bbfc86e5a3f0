import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { api } from './api/client.js';
import { App } from './app.js';
// The desktop app's look (colours, type, buttons, forms), shared rather than copied; then the console's own.
import '../../desktop/renderer/src/styles.css';
import './console.css';

api.endOnPageHide();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
