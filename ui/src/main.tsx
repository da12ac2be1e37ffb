/** Entry of the dashboard bundle. */
import { render } from "preact";
import { App } from "./app.js";
import "../style.css";

const root = document.getElementById("app")!;
root.textContent = ""; // the static "Loading…" placeholder: Preact renders beside it, not over it
render(<App />, root);
