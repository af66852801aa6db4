# A workflow's resources beside the projector: the reactions table (progress rows and timers, with the
# due-time index), the reaction function mapped to its source streams, the timer sweep every minute and,
# with use_scheduler, EventBridge Scheduler's group, the role it invokes the timer function with, and that
# function. The same as dynafold/cdk's ReactionsTable + ReactionFunction + TimerSweep + TimerSchedules.

# Progress rows record which events' effects are written: keep them. As reactionsTableDefinition.
resource "aws_dynamodb_table" "reactions" {
  name         = "${var.name}-reactions"
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
    name = "_ds"
    type = "S"
  }
  attribute {
    name = "_due"
    type = "S"
  }
  global_secondary_index {
    name            = "dueTimers"
    hash_key        = "_ds"
    range_key       = "_due"
    projection_type = "ALL"
  }
  ttl {
    attribute_name = "ttl"
    enabled        = true
  }
  point_in_time_recovery {
    enabled = true
  }
  lifecycle {
    prevent_destroy = true
  }
}

locals {
  # Exactly what reactions send (dynafold/cdk's Actions.reactionOnEvents, reactionOnProgress)...
  reaction_statements = [
    { Effect = "Allow", Action = ["dynamodb:Query", "dynamodb:PutItem"], Resource = aws_dynamodb_table.events.arn },
    { Effect = "Allow", Action = ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"], Resource = aws_dynamodb_table.reactions.arn },
  ]
  # ...and what a timer's firing sends (timersOnDueIndex, timersOnTable, reactionOnEvents).
  firing_statements = [
    { Effect = "Allow", Action = ["dynamodb:Query"], Resource = "${aws_dynamodb_table.reactions.arn}/index/dueTimers" },
    { Effect = "Allow", Action = ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"], Resource = aws_dynamodb_table.reactions.arn },
    { Effect = "Allow", Action = ["dynamodb:Query", "dynamodb:PutItem"], Resource = aws_dynamodb_table.events.arn },
  ]
  # With use_scheduler: the timers' schedules in their group (schedulesInGroup), and passing the role that invokes the timer function.
  timer_function_name = "${var.name}-timer-wakeup"
  scheduling_statements = var.use_scheduler ? [
    { Effect = "Allow", Action = ["scheduler:CreateSchedule", "scheduler:UpdateSchedule", "scheduler:DeleteSchedule"], Resource = "arn:aws:scheduler:*:*:schedule/${aws_scheduler_schedule_group.timers[0].name}/*" },
    { Effect = "Allow", Action = ["iam:PassRole"], Resource = aws_iam_role.scheduler_invoke[0].arn },
  ] : []
  scheduler_environment = var.use_scheduler ? {
    SCHEDULE_GROUP     = aws_scheduler_schedule_group.timers[0].name
    SCHEDULER_ROLE_ARN = aws_iam_role.scheduler_invoke[0].arn
    TIMER_FUNCTION_ARN = "arn:aws:lambda:${data.aws_region.current.name}:${data.aws_caller_identity.current.account_id}:function:${local.timer_function_name}"
  } : {}
  tables_environment = {
    EVENTS_TABLE    = aws_dynamodb_table.events.name
    REACTIONS_TABLE = aws_dynamodb_table.reactions.name
  }
}

data "aws_region" "current" {}
data "aws_caller_identity" "current" {}

resource "aws_sqs_queue" "reaction_on_failure" {
  name                      = "${var.name}-reactions-on-failure"
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true
}

resource "aws_iam_role" "reactions" {
  for_each = toset(["reactions", "timer-sweep", "timer-wakeup"])
  name     = "${var.name}-${each.key}"
  assume_role_policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Principal = { Service = "lambda.amazonaws.com" }, Action = "sts:AssumeRole" }]
  })
}

resource "aws_iam_role_policy_attachment" "reaction_logs" {
  for_each   = aws_iam_role.reactions
  role       = each.value.name
  policy_arn = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
}

# lambdaHandler({ projections: [checkout] }): the workflow takes the events of var.reaction_streams.
resource "aws_iam_role_policy" "reaction" {
  role = aws_iam_role.reactions["reactions"].id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = concat(local.reaction_statements, local.scheduling_statements, [
      { Effect = "Allow", Action = ["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"], Resource = aws_dynamodb_table.events.stream_arn },
      { Effect = "Allow", Action = ["dynamodb:ListStreams"], Resource = "*" },
      { Effect = "Allow", Action = ["sqs:SendMessage"], Resource = aws_sqs_queue.reaction_on_failure.arn },
    ])
  })
}

resource "aws_lambda_function" "reactions" {
  function_name    = "${var.name}-reactions"
  role             = aws_iam_role.reactions["reactions"].arn
  runtime          = "nodejs22.x"
  handler          = "index.handler"
  filename         = var.reactions_zip
  source_code_hash = filebase64sha256(var.reactions_zip)
  memory_size      = 512
  timeout          = 60
  environment {
    variables = merge(local.tables_environment, local.scheduler_environment)
  }
}

resource "aws_lambda_event_source_mapping" "reactions" {
  function_name                  = aws_lambda_function.reactions.arn
  event_source_arn               = aws_dynamodb_table.events.stream_arn
  starting_position              = "TRIM_HORIZON"
  batch_size                     = 100
  parallelization_factor         = 10
  bisect_batch_on_function_error = true
  maximum_retry_attempts         = var.maximum_retry_attempts
  function_response_types        = ["ReportBatchItemFailures"]

  # JSON.stringify(eventFilterPattern(reaction_streams)): only event INSERTs of the workflow's inputs.
  filter_criteria {
    filter {
      pattern = jsonencode({ eventName = ["INSERT"], dynamodb = { NewImage = { _df = { S = var.reaction_streams } } } })
    }
  }

  destination_config {
    on_failure {
      destination_arn = aws_sqs_queue.reaction_on_failure.arn
    }
  }
}

resource "aws_cloudwatch_metric_alarm" "reaction_iterator_age" {
  alarm_name          = "${var.name}-reactions-iterator-age"
  alarm_description   = "The reactions read the stream behind: the oldest record of the last batch is older than a minute."
  namespace           = "AWS/Lambda"
  metric_name         = "IteratorAge"
  dimensions          = { FunctionName = aws_lambda_function.reactions.function_name }
  statistic           = "Maximum"
  period              = 60
  evaluation_periods  = 5
  threshold           = 60000
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
}

# timerSweepHandler({ timers, owners: [checkout] }), every minute: fires the timers due.
resource "aws_iam_role_policy" "timer_sweep" {
  role   = aws_iam_role.reactions["timer-sweep"].id
  policy = jsonencode({ Version = "2012-10-17", Statement = concat(local.firing_statements, local.scheduling_statements) })
}

resource "aws_lambda_function" "timer_sweep" {
  function_name    = "${var.name}-timer-sweep"
  role             = aws_iam_role.reactions["timer-sweep"].arn
  runtime          = "nodejs22.x"
  handler          = "index.handler"
  filename         = var.timer_sweep_zip
  source_code_hash = filebase64sha256(var.timer_sweep_zip)
  memory_size      = 512
  timeout          = 60
  environment {
    variables = merge(local.tables_environment, local.scheduler_environment)
  }
}

resource "aws_cloudwatch_event_rule" "timer_sweep" {
  name                = "${var.name}-timer-sweep"
  description         = "Fires the durable timers that are due (timerSweepHandler)."
  schedule_expression = "rate(1 minute)"
}

resource "aws_cloudwatch_event_target" "timer_sweep" {
  rule = aws_cloudwatch_event_rule.timer_sweep.name
  arn  = aws_lambda_function.timer_sweep.arn
}

resource "aws_lambda_permission" "timer_sweep" {
  statement_id  = "AllowEventBridgeSweep"
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.timer_sweep.function_name
  principal     = "events.amazonaws.com"
  source_arn    = aws_cloudwatch_event_rule.timer_sweep.arn
}

# With use_scheduler: schedulerTimerHandler({ timers, owners: [checkout] }), which each timer's one-time
# schedule invokes at its time.
resource "aws_scheduler_schedule_group" "timers" {
  count = var.use_scheduler ? 1 : 0
  name  = "${var.name}-timers"
}

resource "aws_iam_role" "scheduler_invoke" {
  count = var.use_scheduler ? 1 : 0
  name  = "${var.name}-scheduler-invoke"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow", Principal = { Service = "scheduler.amazonaws.com" }, Action = "sts:AssumeRole",
      Condition = { StringEquals = { "aws:SourceAccount" = data.aws_caller_identity.current.account_id } }
    }]
  })
}

# The function is named, so that its ARN is known before it exists: this role and its own policy name each other.
resource "aws_iam_role_policy" "scheduler_invoke" {
  count = var.use_scheduler ? 1 : 0
  role  = aws_iam_role.scheduler_invoke[0].id
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [{ Effect = "Allow", Action = ["lambda:InvokeFunction"], Resource = local.scheduler_environment.TIMER_FUNCTION_ARN }]
  })
}

# A timer woken a moment early is scheduled again; a fired one's schedule is deleted.
resource "aws_iam_role_policy" "timer_wakeup" {
  count  = var.use_scheduler ? 1 : 0
  role   = aws_iam_role.reactions["timer-wakeup"].id
  policy = jsonencode({ Version = "2012-10-17", Statement = concat(local.firing_statements, local.scheduling_statements) })
}

resource "aws_lambda_function" "timer_wakeup" {
  count            = var.use_scheduler ? 1 : 0
  function_name    = local.timer_function_name
  role             = aws_iam_role.reactions["timer-wakeup"].arn
  runtime          = "nodejs22.x"
  handler          = "index.handler"
  filename         = var.timer_wakeup_zip
  source_code_hash = filebase64sha256(var.timer_wakeup_zip)
  memory_size      = 512
  timeout          = 60
  environment {
    variables = merge(local.tables_environment, local.scheduler_environment)
  }
}
