package dev.nixexec.webhook;

import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * {@code X-NixExec-Signature: sha256=<hex>}: HMAC-SHA256 of the exact body bytes, keyed with the
 * tenant's webhook secret (its UTF-8 bytes, {@code whsec_…} included).
 */
public final class WebhookSignature {

    public static final String HEADER = "X-NixExec-Signature";

    private WebhookSignature() {
    }

    public static String of(byte[] secret, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException(e);
        }
    }
}
