export { batchWorkflow } from './batch.js';
export { sessionWorkflow } from './session.js';
export { sessionFilesWorkflow } from './session-files.js';
