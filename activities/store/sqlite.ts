/** The SQLite store, where its users import it from (its parts are in sqlite/). */
export { SqliteSessionStore } from './sqlite/store.js';
