// The schema lives in core/ so workflows can use the types; activities keep importing it from here.
export * from '../../core/config.js';
