export { batchWorkflow } from './batch.js';
export { sessionWorkflow } from './session.js';
