import { render } from 'preact';
import { App } from './app/app.tsx';
import './styles/console.css';

const root = document.getElementById('app');
if (root) {
  root.replaceChildren();
  render(<App />, root);
}
