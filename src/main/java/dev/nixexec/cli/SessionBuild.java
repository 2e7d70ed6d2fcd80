package dev.nixexec.cli;

import com.fasterxml.jackson.databind.JsonNode;

/** A session being built, followed to {@code ready} or {@code failed} through its build job's wait. */
final class SessionBuild {

    private SessionBuild() {
    }

    static JsonNode await(Server server, JsonNode session) {
        String id = Server.segment(session.path("id").asText());
        while ("building".equals(session.path("status").asText())) {
            String job = session.path("build_job_id").asText();
            if (!job.isEmpty()) {
                server.get("/v1/jobs/" + Server.segment(job) + "?wait=60");
            }
            session = server.get("/v1/sessions/" + id);
        }
        return session;
    }

    static int exit(JsonNode session, Terminal terminal) {
        if (!"failed".equals(session.path("status").asText())) {
            return Exit.OK.code;
        }
        JsonNode error = session.path("error");
        String why = error.isObject() ? error.path("code").asText("error") + ": " + error.path("message").asText()
                : error.asText("the build failed");
        terminal.err().println("nix-exec: session " + Printable.line(session.path("id").asText()) + " failed: " + Printable.line(why));
        return Exit.COULD_NOT_RUN.code;
    }
}
