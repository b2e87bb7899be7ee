package dev.ordo.server.sqs;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4, checked as AWS documents it ("Create a signed AWS API request"). Pure:
 * the request, the secrets and {@code now} are passed in.
 *
 * <ol>
 *   <li>The {@code Authorization} header names the algorithm ({@code AWS4-HMAC-SHA256}), the credential
 *       ({@code <access key id>/<yyyyMMdd>/<region>/<service>/aws4_request}), the signed headers and the
 *       signature.</li>
 *   <li>The canonical request: method, canonical URI (each path segment URI-encoded again, as for every
 *       service but S3), canonical query string (names and values URI-encoded, sorted), the signed headers
 *       as {@code name:value} lines (lower-case names, trimmed values, inner spaces folded), their names
 *       joined by {@code ;}, and the hex SHA-256 of the body.</li>
 *   <li>The string to sign: the algorithm, the request time ({@code X-Amz-Date}), the scope, and the hex
 *       SHA-256 of the canonical request.</li>
 *   <li>The signing key: HMAC-SHA256 of the date, region, service and {@code aws4_request} in turn, keyed
 *       first with {@code "AWS4" + secret}; the signature is the hex HMAC of the string to sign.</li>
 * </ol>
 * A request signed more than {@link #MAX_SKEW} away from {@code now} is refused (RequestExpired). A
 * presigned request carries the same fields in its query ({@code X-Amz-Credential}, ...,
 * {@code X-Amz-Signature}, the query signed without the last) and is good until {@code X-Amz-Expires}.
 */
public final class SigV4 {
  public static final String ALGORITHM = "AWS4-HMAC-SHA256";
  public static final Duration MAX_SKEW = Duration.ofMinutes(15);
  private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");

  private SigV4() {}

  /** A request as it came: method, raw (still encoded) path and query, headers by lower-case name, body. */
  public record Request(String method, String rawPath, String rawQuery, Map<String, List<String>> headers,
      byte[] body) {
    Optional<String> header(String name) {
      List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
      return v == null || v.isEmpty() ? Optional.empty() : Optional.of(String.join(",", v));
    }
  }

  /** The parts of an {@code Authorization} header. */
  public record Authorization(String accessKeyId, String date, String region, String service,
      List<String> signedHeaders, String signature) {}

  /**
   * Checks the request's signature with the secret {@code secrets} gives for its access key id and
   * returns that access key id.
   *
   * @throws SqsException MissingAuthenticationToken, IncompleteSignature, InvalidClientTokenId (an unknown
   *     access key id), RequestExpired, or SignatureDoesNotMatch
   */
  public static String verify(Request request, String service, Function<String, Optional<String>> secrets,
      Instant now) throws SqsException {
    Map<String, String> query = queryParams(request.rawQuery());
    Authorization auth;
    String amzDate;
    String signedQuery;
    Duration expires = MAX_SKEW;
    if (request.header("authorization").isEmpty() && query.containsKey("X-Amz-Signature")) {
      // A presigned request (kombu's GETs): the same fields in the query, which is signed without the signature.
      if (!ALGORITHM.equals(query.get("X-Amz-Algorithm")) || !query.containsKey("X-Amz-Credential")
          || !query.containsKey("X-Amz-SignedHeaders") || !query.containsKey("X-Amz-Date")) {
        throw SqsError.INCOMPLETE_SIGNATURE.with("A presigned request needs X-Amz-Algorithm=" + ALGORITHM
            + ", X-Amz-Credential, X-Amz-Date, X-Amz-SignedHeaders and X-Amz-Signature.");
      }
      auth = parse(ALGORITHM + " Credential=" + query.get("X-Amz-Credential") + ", SignedHeaders="
          + query.get("X-Amz-SignedHeaders") + ", Signature=" + query.get("X-Amz-Signature"));
      amzDate = query.get("X-Amz-Date");
      signedQuery = withoutSignature(request.rawQuery());
      try {
        expires = Duration.ofSeconds(Long.parseLong(query.getOrDefault("X-Amz-Expires", "900")));
      } catch (NumberFormatException e) {
        throw SqsError.INCOMPLETE_SIGNATURE.with("X-Amz-Expires must be a number of seconds.");
      }
    } else {
      String header = request.header("authorization").orElseThrow(() ->
          SqsError.MISSING_AUTHENTICATION_TOKEN.with("Request is missing Authentication Token: sign it with AWS"
              + " Signature Version 4 (an access key id and secret of an Ordo principal's SQS credential)"));
      auth = parse(header);
      amzDate = request.header("x-amz-date").orElseThrow(() ->
          SqsError.INCOMPLETE_SIGNATURE.with("The request must carry X-Amz-Date."));
      signedQuery = request.rawQuery();
    }
    if (!auth.service().equals(service)) {
      throw SqsError.SIGNATURE_DOES_NOT_MATCH.with("Credential should be scoped to correct service: '" + service + "'.");
    }
    if (!auth.signedHeaders().contains("host")) {
      throw SqsError.INCOMPLETE_SIGNATURE.with("The host header must be signed.");
    }
    Instant signedAt;
    try {
      signedAt = LocalDateTime.parse(amzDate, AMZ_DATE).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      throw SqsError.INCOMPLETE_SIGNATURE.with("X-Amz-Date '" + amzDate + "' is not yyyyMMdd'T'HHmmss'Z'.");
    }
    if (!amzDate.startsWith(auth.date())) {
      throw SqsError.SIGNATURE_DOES_NOT_MATCH.with("Credential should be scoped to a valid date: '" + amzDate
          .substring(0, 8) + "'.");
    }
    if (signedAt.isAfter(now.plus(MAX_SKEW)) || now.isAfter(signedAt.plus(expires.compareTo(MAX_SKEW) > 0
        ? expires : MAX_SKEW))) {
      throw SqsError.REQUEST_EXPIRED.with("Signature expired: " + amzDate + " is more than "
          + Math.max(MAX_SKEW.toMinutes(), expires.toMinutes()) + " minutes from the server's time "
          + AMZ_DATE.format(now.atOffset(ZoneOffset.UTC)) + ".");
    }
    String secret = secrets.apply(auth.accessKeyId()).orElseThrow(() ->
        SqsError.INVALID_CLIENT_TOKEN_ID.with("The security token included in the request is invalid: no SQS"
            + " credential has access key id '" + auth.accessKeyId() + "'."));
    Request signed = new Request(request.method(), request.rawPath(), signedQuery, request.headers(), request.body());
    String expected = signature(signed, auth, amzDate, secret);
    if (!MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
        auth.signature().getBytes(StandardCharsets.US_ASCII))) {
      throw SqsError.SIGNATURE_DOES_NOT_MATCH.with("The request signature we calculated does not match the signature"
          + " you provided. Check your AWS Secret Access Key and signing method.");
    }
    return auth.accessKeyId();
  }

  /** The query's parameters, decoded (the last of a repeated name). */
  static Map<String, String> queryParams(String rawQuery) {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return out;
    }
    for (String p : rawQuery.split("&")) {
      int eq = p.indexOf('=');
      out.put(decode(eq < 0 ? p : p.substring(0, eq)), eq < 0 ? "" : decode(p.substring(eq + 1)));
    }
    return out;
  }

  private static String withoutSignature(String rawQuery) {
    StringBuilder b = new StringBuilder();
    for (String p : rawQuery.split("&")) {
      if (p.startsWith("X-Amz-Signature=") || p.isEmpty()) {
        continue;
      }
      if (b.length() > 0) {
        b.append('&');
      }
      b.append(p);
    }
    return b.toString();
  }

  /** Reads {@code AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...}. */
  public static Authorization parse(String header) throws SqsException {
    String h = header.trim();
    if (!h.startsWith(ALGORITHM + " ")) {
      throw SqsError.INCOMPLETE_SIGNATURE.with("Unsupported signing algorithm: sign with " + ALGORITHM + ".");
    }
    String credential = null;
    String signed = null;
    String signature = null;
    for (String part : h.substring(ALGORITHM.length()).split(",")) {
      String p = part.trim();
      int eq = p.indexOf('=');
      if (eq < 0) {
        continue;
      }
      String value = p.substring(eq + 1).trim();
      switch (p.substring(0, eq).trim()) {
        case "Credential" -> credential = value;
        case "SignedHeaders" -> signed = value;
        case "Signature" -> signature = value;
        default -> { }
      }
    }
    if (credential == null || signed == null || signature == null) {
      throw SqsError.INCOMPLETE_SIGNATURE.with("Authorization header requires 'Credential', 'SignedHeaders' and"
          + " 'Signature'.");
    }
    String[] scope = credential.split("/");
    if (scope.length != 5 || !scope[4].equals("aws4_request") || scope[0].isEmpty()) {
      throw SqsError.INCOMPLETE_SIGNATURE.with("Credential must be <access key id>/<date>/<region>/<service>/aws4_request,"
          + " got '" + credential + "'.");
    }
    return new Authorization(scope[0], scope[1], scope[2], scope[3], List.of(signed.toLowerCase(Locale.ROOT).split(";")),
        signature.toLowerCase(Locale.ROOT));
  }

  /** The signature of {@code request} with {@code secret}, as a client computes it. */
  public static String signature(Request request, Authorization auth, String amzDate, String secret) {
    String scope = auth.date() + "/" + auth.region() + "/" + auth.service() + "/aws4_request";
    String stringToSign = ALGORITHM + "\n" + amzDate + "\n" + scope + "\n" + hex(sha256(canonicalRequest(request,
        auth.signedHeaders()).getBytes(StandardCharsets.UTF_8)));
    byte[] key = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), auth.date());
    key = hmac(key, auth.region());
    key = hmac(key, auth.service());
    key = hmac(key, "aws4_request");
    return hex(hmac(key, stringToSign));
  }

  static String canonicalRequest(Request r, List<String> signedHeaders) {
    StringBuilder b = new StringBuilder();
    b.append(r.method().toUpperCase(Locale.ROOT)).append('\n');
    b.append(canonicalUri(r.rawPath())).append('\n');
    b.append(canonicalQuery(r.rawQuery())).append('\n');
    for (String name : signedHeaders) {
      List<String> values = r.headers().getOrDefault(name, List.of());
      List<String> trimmed = new ArrayList<>();
      values.forEach(v -> trimmed.add(v.trim().replaceAll("\\s+", " ")));
      b.append(name).append(':').append(String.join(",", trimmed)).append('\n');
    }
    b.append('\n').append(String.join(";", signedHeaders)).append('\n');
    String declared = r.header("x-amz-content-sha256").orElse(null);
    b.append("UNSIGNED-PAYLOAD".equals(declared) ? declared : hex(sha256(r.body())));
    return b.toString();
  }

  static String canonicalUri(String rawPath) {
    if (rawPath == null || rawPath.isEmpty()) {
      return "/";
    }
    StringBuilder b = new StringBuilder();
    String[] segments = rawPath.split("/", -1);
    for (int i = 0; i < segments.length; i++) {
      if (i > 0) {
        b.append('/');
      }
      b.append(encode(segments[i]));
    }
    return b.toString();
  }

  static String canonicalQuery(String rawQuery) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return "";
    }
    List<String[]> pairs = new ArrayList<>();
    for (String p : rawQuery.split("&")) {
      if (p.isEmpty()) {
        continue;
      }
      int eq = p.indexOf('=');
      String k = eq < 0 ? p : p.substring(0, eq);
      String v = eq < 0 ? "" : p.substring(eq + 1);
      pairs.add(new String[] {encode(decode(k)), encode(decode(v))});
    }
    pairs.sort((a, c) -> a[0].equals(c[0]) ? a[1].compareTo(c[1]) : a[0].compareTo(c[0]));
    StringBuilder b = new StringBuilder();
    for (String[] p : pairs) {
      if (b.length() > 0) {
        b.append('&');
      }
      b.append(p[0]).append('=').append(p[1]);
    }
    return b.toString();
  }

  private static String decode(String s) {
    try {
      return java.net.URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return s;
    }
  }

  /** RFC 3986 encoding as SigV4 wants it: every byte but A-Z a-z 0-9 - _ . ~ as %XX (upper-case hex). */
  static String encode(String s) {
    StringBuilder b = new StringBuilder();
    for (byte x : s.getBytes(StandardCharsets.UTF_8)) {
      int c = x & 0xff;
      if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
          || c == '~') {
        b.append((char) c);
      } else {
        b.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return b.toString();
  }

  static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] hmac(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException(e);
    }
  }

  static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }
}
