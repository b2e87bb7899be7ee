package dev.ordo.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** SigV4 against AWS's published test suite (get-vanilla, get-vanilla-query-order-key-case) and its refusals. */
class SigV4Test {
  private static final String KEY = "AKIDEXAMPLE";
  private static final String SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
  private static final Instant SIGNED_AT = Instant.parse("2015-08-30T12:36:00Z");
  private static final Function<String, Optional<String>> SECRETS = id -> id.equals(KEY) ? Optional.of(SECRET)
      : Optional.empty();

  private static SigV4.Request request(String query, String signature) {
    Map<String, List<String>> headers = new TreeMap<>();
    headers.put("host", List.of("example.amazonaws.com"));
    headers.put("x-amz-date", List.of("20150830T123600Z"));
    headers.put("authorization", List.of("AWS4-HMAC-SHA256 Credential=" + KEY + "/20150830/us-east-1/service/aws4_request,"
        + " SignedHeaders=host;x-amz-date, Signature=" + signature));
    return new SigV4.Request("GET", "/", query, headers, new byte[0]);
  }

  @Test
  void awsPublishedSignaturesVerify() throws SqsException {
    assertEquals(KEY, SigV4.verify(request(null, "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        "service", SECRETS, SIGNED_AT));
    assertEquals(KEY, SigV4.verify(request("Param2=value2&Param1=value1",
        "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"), "service", SECRETS, SIGNED_AT.plusSeconds(60)),
        "the query is sorted before signing");
  }

  @Test
  void aWrongSignatureSecretKeyOrTimeIsRefused() {
    SqsException tampered = assertThrows(SqsException.class, () -> SigV4.verify(
        request(null, "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf32"), "service", SECRETS, SIGNED_AT));
    assertEquals(SqsError.SIGNATURE_DOES_NOT_MATCH, tampered.error());
    SqsException otherSecret = assertThrows(SqsException.class, () -> SigV4.verify(
        request(null, "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"), "service",
        id -> Optional.of(SECRET + "x"), SIGNED_AT));
    assertEquals(SqsError.SIGNATURE_DOES_NOT_MATCH, otherSecret.error());
    SqsException unknown = assertThrows(SqsException.class, () -> SigV4.verify(
        request(null, "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"), "service",
        id -> Optional.empty(), SIGNED_AT));
    assertEquals(SqsError.INVALID_CLIENT_TOKEN_ID, unknown.error());
    SqsException late = assertThrows(SqsException.class, () -> SigV4.verify(
        request(null, "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"), "service", SECRETS,
        SIGNED_AT.plus(SigV4.MAX_SKEW).plusSeconds(1)));
    assertEquals(SqsError.REQUEST_EXPIRED, late.error());
    SqsException otherService = assertThrows(SqsException.class, () -> SigV4.verify(
        request(null, "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"), "sqs", SECRETS, SIGNED_AT));
    assertEquals(SqsError.SIGNATURE_DOES_NOT_MATCH, otherService.error());
    SqsException unsigned = assertThrows(SqsException.class, () -> SigV4.verify(
        new SigV4.Request("POST", "/", null, Map.of(), new byte[0]), "sqs", SECRETS, SIGNED_AT));
    assertEquals(SqsError.MISSING_AUTHENTICATION_TOKEN, unsigned.error());
    SqsException malformed = assertThrows(SqsException.class, () -> SigV4.parse("AWS4-HMAC-SHA256 Credential=x"));
    assertEquals(SqsError.INCOMPLETE_SIGNATURE, malformed.error());
  }

  @Test
  void pathSegmentsAreEncodedAgainAndQueryValuesSorted() {
    assertEquals("/a%2520b/q", SigV4.canonicalUri("/a%20b/q"), "every service but S3 encodes the path twice");
    assertEquals("A=0&a=1&b=%20", SigV4.canonicalQuery("b=%20&a=1&A=0"));
    assertEquals("%E1%88%B4~-_.", SigV4.encode("\u1234~-_."));
  }
}
