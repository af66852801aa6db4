# A dynafold projector: the events table with its stream, a read-model table, the projector function and
# its event source mapping, an OnFailure queue, least-privilege IAM and an iterator age alarm. The same
# as dynafold/cdk's EventsTable + ReadModelTable + Projector.

terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0"
    }
  }
}

resource "aws_dynamodb_table" "events" {
  name             = "${var.name}-events"
  billing_mode     = "PAY_PER_REQUEST"
  hash_key         = "pk"
  range_key        = "sk"
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"

  attribute {
    name = "pk"
    type = "S"
  }
  attribute {
    name = "sk"
    type = "S"
  }
  point_in_time_recovery {
    enabled = true
  }
  lifecycle {
    prevent_destroy = true
  }
}

resource "aws_dynamodb_table" "views" {
  name         = "${var.name}-views"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  range_key    = "sk"

  attribute {
    name = "pk"
    type = "S"
  }
  attribute {
    name = "sk"
    type = "S"
  }
  attribute {
    name = "gsi1pk"
    type = "S"
  }
  attribute {
    name = "gsi1sk"
    type = "S"
  }
  global_secondary_index {
    name            = "gsi1"
    hash_key        = "gsi1pk"
    range_key       = "gsi1sk"
    projection_type = "ALL"
  }
}

resource "aws_sqs_queue" "on_failure" {
  name                      = "${var.name}-projector-on-failure"
  message_retention_seconds = 1209600 # 14 days, to replay a dropped batch with replayFailure
  sqs_managed_sse_enabled   = true
}

resource "aws_iam_role" "projector" {
  name = "${var.name}-projector"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "lambda.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
}

resource "aws_iam_role_policy_attachment" "logs" {
  role       = aws_iam_role.projector.name
  policy_arn = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
}

# Exactly what lambdaHandler sends (dynafold/cdk's Actions), the stream reads of the mapping and the
# OnFailure destination.
resource "aws_iam_role_policy" "projector" {
  role = aws_iam_role.projector.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      { Effect = "Allow", Action = ["dynamodb:Query"], Resource = aws_dynamodb_table.events.arn },
      { Effect = "Allow", Action = ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"], Resource = aws_dynamodb_table.views.arn },
      { Effect = "Allow", Action = ["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"], Resource = aws_dynamodb_table.events.stream_arn },
      { Effect = "Allow", Action = ["dynamodb:ListStreams"], Resource = "*" },
      { Effect = "Allow", Action = ["sqs:SendMessage"], Resource = aws_sqs_queue.on_failure.arn },
    ]
  })
}

resource "aws_lambda_function" "projector" {
  function_name    = "${var.name}-projector"
  role             = aws_iam_role.projector.arn
  runtime          = "nodejs22.x"
  handler          = "index.handler"
  filename         = var.lambda_zip
  source_code_hash = filebase64sha256(var.lambda_zip)
  memory_size      = 512
  timeout          = 60
  environment {
    variables = {
      EVENTS_TABLE = aws_dynamodb_table.events.name
      VIEWS_TABLE  = aws_dynamodb_table.views.name
    }
  }
}

resource "aws_lambda_event_source_mapping" "projector" {
  function_name                  = aws_lambda_function.projector.arn
  event_source_arn               = aws_dynamodb_table.events.stream_arn
  starting_position              = "TRIM_HORIZON"
  batch_size                     = 100
  parallelization_factor         = 1
  bisect_batch_on_function_error = true
  maximum_retry_attempts         = var.maximum_retry_attempts
  function_response_types        = ["ReportBatchItemFailures"]

  # JSON.stringify(eventFilterPattern(streams)): only event INSERTs of the streams invoke the function.
  filter_criteria {
    filter {
      pattern = jsonencode({ eventName = ["INSERT"], dynamodb = { NewImage = { _df = { S = var.streams } } } })
    }
  }

  destination_config {
    on_failure {
      destination_arn = aws_sqs_queue.on_failure.arn
    }
  }
}

resource "aws_cloudwatch_metric_alarm" "iterator_age" {
  alarm_name          = "${var.name}-projector-iterator-age"
  alarm_description   = "The stream is read behind: the oldest record of the last batch is older than a minute."
  namespace           = "AWS/Lambda"
  metric_name         = "IteratorAge"
  dimensions          = { FunctionName = aws_lambda_function.projector.function_name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 5
  threshold           = 60000
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
}
