/** The bus every accepted task change is published to (a UI or client watches tasks there). */
export const TASKS_BUS = "tasks";
