// The validator off the page's thread: it runs every task on every variant, which for a large
// draft takes long enough to freeze typing. The studio sends the file here and, when the
// author changes it before the answer comes, ends this worker and starts another rather than
// wait for a check of a text that is gone.
import init, { validate } from './streamlab_studio.js';

const ready = init({ module_or_path: new URL('streamlab_studio_bg.wasm', import.meta.url) });

onmessage = async (event) => {
  const { id, file, text } = event.data;
  try {
    await ready;
    postMessage({ id, result: JSON.parse(validate(file, text)) });
  } catch (error) {
    postMessage({ id, error: String(error?.message ?? error) });
  }
};
