; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

%"class.RWStructuredBuffer<uint>" = type opaque
declare void @"firstNode"()

declare void @"secondNode"()

declare void @"thirdNode"()

@"UAV" = external constant %"class.RWStructuredBuffer<uint>"
!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.resources = !{ !5 }
!dx.entryPoints = !{ !6, !19, !28, !33 }
!wgc.spirv.entryPoints = !{ !34, !35, !36 }
!wgc.experimental.tags = !{ !37, !38 }
!llvm.ident = !{ !39 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ i32 1, i32 4 }
!3 = !{ i32 0, %"class.RWStructuredBuffer<uint>"* @"UAV", !"UAV", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !2 }
!4 = !{ !3 }
!5 = !{ null, !4, null, null }
!6 = !{ null, !"", null, !5, null }
!7 = !{ !"firstNode", i32 0 }
!8 = !{ i32 16, i32 1, i32 1 }
!9 = !{ i32 0, i32 5, i32 1 }
!10 = !{ i32 0, i32 8, i32 1, !9, i32 2, i32 4 }
!11 = !{ i32 1, i32 97, i32 2, !10 }
!12 = !{ !11 }
!13 = !{ i32 0, i32 8, i32 2, i32 4 }
!14 = !{ !"secondNode", i32 0 }
!15 = !{ i32 1, i32 6, i32 2, !13, i32 3, i32 2, i32 0, !14 }
!16 = !{ !15 }
!17 = !{ i32 2, i32 1, i32 1 }
!18 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !7, i32 16, i32 -1, i32 22, !8, i32 20, !12, i32 21, !16, i32 4, !17 }
!19 = !{ void ()* @"firstNode", !"firstNode", null, null, !18 }
!20 = !{ i32 1, i32 33, i32 2, !13 }
!21 = !{ !20 }
!22 = !{ i32 0, i32 4, i32 2, i32 4 }
!23 = !{ !"thirdNode", i32 0 }
!24 = !{ i32 1, i32 6, i32 2, !22, i32 3, i32 1, i32 0, !23 }
!25 = !{ !24 }
!26 = !{ i32 1, i32 1, i32 1 }
!27 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !14, i32 16, i32 -1, i32 20, !21, i32 21, !25, i32 4, !26 }
!28 = !{ void ()* @"secondNode", !"secondNode", null, null, !27 }
!29 = !{ i32 1, i32 65, i32 2, !22, i32 3, i32 32 }
!30 = !{ !29 }
!31 = !{ i32 32, i32 1, i32 1 }
!32 = !{ i32 8, i32 15, i32 13, i32 2, i32 15, !23, i32 16, i32 -1, i32 20, !30, i32 4, !31 }
!33 = !{ void ()* @"thirdNode", !"thirdNode", null, null, !32 }
!34 = !{ void ()* @"firstNode", !"firstNode" }
!35 = !{ void ()* @"secondNode", !"secondNode" }
!36 = !{ void ()* @"thirdNode", !"thirdNode" }
!37 = !{ !"NodeMaxLoopIterations", i32 131072 }
!38 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!39 = !{ !"wgc 0.1.0" }
