package dev.ordo.server.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ordo.server.TestServer;
import dev.ordo.server.auth.SecurityConfig;
import dev.ordo.testing.KafkaCluster;
import dev.ordo.testing.RealKafka;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * With {@code ordo.http.auth=token}, every SQS request must be signed (AWS Signature Version 4) with an
 * SQS credential of a principal, made over the HTTP API and shown once; the principal's grants then
 * decide each action (docs/sqs.md's table): the real Java SDK (JSON protocol) and boto3 (the query
 * protocol's signed form bodies) sign, and a wrong secret, an unknown key or a missing grant is refused.
 */
@KafkaCluster
class SqsSignatureTest {
  private static final String BOOTSTRAP = "bootstrap-token-for-the-sqs-test-0123456789";

  @TempDir
  static Path tmp;

  private static TestServer server;

  @BeforeAll
  static void start(RealKafka kafka) {
    server = TestServer.startWithSqs(kafka, "sqsauth", tmp.resolve("server"),
        Map.of(SecurityConfig.AUTH, "token", SecurityConfig.BOOTSTRAP_TOKEN, BOOTSTRAP), OptionalInt.empty());
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** A principal with {@code grants} and a new SQS credential: its access key id and secret. */
  private static String[] principal(String name, String... grants) {
    TestServer.Reply made = server.call("POST", "/v1/principals", "{\"name\": \"" + name + "\", \"grants\": [\""
        + String.join("\", \"", grants) + "\"], \"token\": false}", BOOTSTRAP);
    assertEquals(201, made.status(), made.text());
    TestServer.Reply key = server.call("POST", "/v1/principals/" + name + "/sqs-credentials", null, BOOTSTRAP);
    assertEquals(201, key.status(), key.text());
    TestServer.Reply shown = server.call("GET", "/v1/principals/" + name, null, BOOTSTRAP);
    assertFalse(shown.text().contains(key.json().get("secretAccessKey").asText()), "the secret is shown once only");
    assertTrue(shown.text().contains(key.json().get("accessKeyId").asText()), shown.text());
    return new String[] {key.json().get("accessKeyId").asText(), key.json().get("secretAccessKey").asText()};
  }

  private static SqsClient client(String path, String key, String secret) {
    return SqsClient.builder().endpointOverride(URI.create(server.sqsAddress() + path)).region(Region.EU_WEST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret))).build();
  }

  @Test
  void signedRequestsActWithThePrincipalsGrants() {
    String[] operator = principal("shop-operator", "shop:operate");
    String[] worker = principal("shop-worker", "shop:produce,consume");
    String[] outsider = principal("outsider", "other:produce,consume,operate");
    try (SqsClient ops = client("/shop", operator[0], operator[1]);
        SqsClient work = client("/shop", worker[0], worker[1]);
        SqsClient other = client("/shop", outsider[0], outsider[1])) {
      String url = ops.createQueue(b -> b.queueName("orders")).queueUrl();
      assertTrue(url.endsWith("/shop/orders"), "the endpoint's path names the namespace: " + url);

      work.sendMessage(b -> b.queueUrl(url).messageBody("order-1"));
      List<Message> got = work.receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(10)
          .messageSystemAttributeNamesWithStrings("SenderId")).messages();
      assertEquals("order-1", got.get(0).body());
      assertEquals("shop-worker", got.get(0).attributesAsStrings().get("SenderId"), "the principal that sent it");
      work.deleteMessage(b -> b.queueUrl(url).receiptHandle(got.get(0).receiptHandle()));

      SqsException workerCreates = assertThrows(SqsException.class, () -> work.createQueue(b -> b.queueName("mine")));
      assertEquals("AccessDenied", workerCreates.awsErrorDetails().errorCode());
      assertEquals(403, workerCreates.statusCode());
      SqsException operatorSends = assertThrows(SqsException.class, () -> ops.sendMessage(b -> b.queueUrl(url)
          .messageBody("x")));
      assertEquals("AccessDenied", operatorSends.awsErrorDetails().errorCode());
      assertTrue(operatorSends.getMessage().contains("'produce'"), operatorSends.getMessage());
      SqsException elsewhere = assertThrows(SqsException.class, () -> other.receiveMessage(b -> b.queueUrl(url)));
      assertEquals("AccessDenied", elsewhere.awsErrorDetails().errorCode());
      assertFalse(other.listQueues().queueUrls().contains(url), "a queue of a namespace the caller has no grant in");
    }
    TestServer.Reply audit = server.call("GET", "/v1/audit?limit=1000", null, BOOTSTRAP);
    assertEquals(200, audit.status(), audit.text());
    boolean created = false;
    boolean refused = false;
    for (com.fasterxml.jackson.databind.JsonNode e : audit.json().get("entries")) {
      created |= e.get("path").asText().equals("sqs:CreateQueue") && e.get("principal").asText().equals("shop-operator")
          && e.get("status").asInt() == 200 && e.get("request").asText().contains("orders");
      refused |= e.get("path").asText().equals("sqs:CreateQueue") && e.get("principal").asText().equals("shop-worker")
          && e.get("status").asInt() == 403 && e.get("outcome").asText().startsWith("AccessDenied");
    }
    assertTrue(created && refused, "the queue made and the refused attempt are audited: " + audit.text());
  }

  @Test
  void aWrongSecretAnUnknownKeyOrNoSignatureIsRefused() throws Exception {
    String[] worker = principal("signer", "shop:produce,consume");
    try (SqsClient wrong = client("", worker[0], worker[1] + "x");
        SqsClient unknown = client("", "ORUNKNOWNKEY0000000", worker[1])) {
      SqsException bad = assertThrows(SqsException.class, () -> wrong.listQueues());
      assertEquals("SignatureDoesNotMatch", bad.awsErrorDetails().errorCode());
      SqsException none = assertThrows(SqsException.class, () -> unknown.listQueues());
      assertEquals("InvalidClientTokenId", none.awsErrorDetails().errorCode());
    }
    java.net.http.HttpResponse<String> unsigned = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(server.sqsAddress()).header("Content-Type",
            "application/x-www-form-urlencoded").POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                "Action=ListQueues&Version=2012-11-05")).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(403, unsigned.statusCode());
    assertTrue(unsigned.body().contains("<Code>MissingAuthenticationToken</Code>"), unsigned.body());
  }

  @Test
  void boto3SignsTheQueryProtocolsFormBodies() throws Exception {
    SqsClientPrograms.install();
    String[] all = principal("py", "sqs:produce,consume,operate");
    SqsClientPrograms.Run run = SqsClientPrograms.run(List.of(SqsClientPrograms.PYTHON,
        SqsClientPrograms.repoRoot().resolve("docs/examples/sqs/boto3_check.py").toString(),
        server.sqsAddress().toString(), all[0], all[1]), Map.of(), null, Duration.ofMinutes(2));
    assertTrue(run.ok() && run.out().contains("\ndone"), run::toString);
    SqsClientPrograms.Run refused = SqsClientPrograms.run(List.of(SqsClientPrograms.PYTHON,
        SqsClientPrograms.repoRoot().resolve("docs/examples/sqs/boto3_check.py").toString(),
        server.sqsAddress().toString(), all[0], "not-the-secret"), Map.of(), null, Duration.ofMinutes(2));
    assertFalse(refused.ok(), refused::toString);
    assertTrue(refused.err().contains("SignatureDoesNotMatch"), refused::toString);

    // A presigned GET (what kombu's async client sends for DeleteMessage and GetQueueAttributes).
    String presign = String.join("\n",
        "import sys, urllib.request, urllib.error, boto3",
        "sqs = boto3.client('sqs', endpoint_url=sys.argv[1], region_name='us-east-1',",
        "                   aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3])",
        "url = sqs.generate_presigned_url('list_queues', Params={'QueueNamePrefix': 'py'}, HttpMethod='GET')",
        "print(urllib.request.urlopen(url).status)",
        "try:",
        "    urllib.request.urlopen(url.replace('X-Amz-Signature=', 'X-Amz-Signature=0'))",
        "except urllib.error.HTTPError as e:",
        "    print(e.code, 'SignatureDoesNotMatch' in e.read().decode())");
    SqsClientPrograms.Run presigned = SqsClientPrograms.run(List.of(SqsClientPrograms.PYTHON, "-c", presign,
        server.sqsAddress().toString(), all[0], all[1]), Map.of(), null, Duration.ofMinutes(1));
    assertEquals("200\n403 True\n", presigned.out(), presigned::toString);
  }
}
