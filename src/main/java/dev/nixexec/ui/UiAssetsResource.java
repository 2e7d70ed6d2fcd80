package dev.nixexec.ui;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;

/** The UI's style sheet, script and icon, served by the service itself (no CDN; it works offline). */
@Path("/ui/assets")
public class UiAssetsResource {

    @GET
    @Path("{name}")
    public Response asset(@PathParam("name") String name) throws IOException {
        String type = switch (name) {
            case "ui.js" -> "text/javascript; charset=utf-8";
            case "ui.css" -> "text/css; charset=utf-8";
            case "favicon.svg" -> "image/svg+xml";
            default -> null;
        };
        if (type == null) {
            return Response.status(404).build();
        }
        try (InputStream in = UiAssetsResource.class.getResourceAsStream("/ui/" + name)) {
            return Response.ok(in.readAllBytes(), type).header("Cache-Control", "no-cache").build();
        }
    }
}
