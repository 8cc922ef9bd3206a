import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { RunProgress } from '../core/run.js';

/** Signals and queries of `sessionWorkflow`, declared once for the workflow and the client. */

/** A new prompt for a session whose run is busy: handled at the run's next step. */
export const promptSignal = defineSignal<[{ text: string }]>('prompt');

export const progressQuery = defineQuery<RunProgress>('progress');

export const SESSION_WORKFLOW_TYPE = 'sessionWorkflow';
