/** The PostgreSQL store, where its users import it from (its parts are in postgres/). */
export { PostgresSessionStore } from './postgres/store.js';
