/**
 * The partner's webhook receiver, as the bench runs it: takes every event at
 * once (204). The measured gateway delivers its events here, as a deployment
 * does to a receiver that is up; the events run (lib/events.mjs) also
 * measures one that is down.
 */
import http from "node:http";
import { HOST } from "./config.mjs";

export function startReceiver(port) {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      res.writeHead(204);
      res.end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, HOST, () => resolve({ server, received: () => received, close: () => server.close() }));
  });
}
