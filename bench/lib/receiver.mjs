/**
 * The partner's webhook receiver, as the bench runs it: takes every event at
 * once (204). The measured gateway delivers its events here, as a deployment
 * does to a receiver that is up; the events run (lib/events.mjs) also
 * measures one that is down.
 */
import http from "node:http";
import { HOST } from "./config.mjs";

/**
 * Starts the receiver on `port` (0: any free one); `url` is where to send the events. `received`: the deliveries
 * it took; `distinct`: the events among them (by webhook-id, the same on every delivery of an event).
 */
export function startReceiver(port) {
  let received = 0;
  const ids = new Set();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      ids.add(req.headers["webhook-id"]);
      res.writeHead(204);
      res.end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, HOST, () =>
      resolve({
        server,
        url: `http://${HOST}:${server.address().port}/webhooks`,
        received: () => received,
        distinct: () => ids.size,
        close: () => server.close(),
      }),
    );
  });
}

/**
 * A webhook URL nobody answers: a port the system gave this process and
 * took back at once (the events run's receiver that is down).
 */
export function unansweredUrl() {
  const server = http.createServer();
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(`http://${HOST}:${port}/webhooks`));
    });
  });
}
